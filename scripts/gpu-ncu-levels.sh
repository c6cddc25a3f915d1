#!/usr/bin/env bash
# On the GPU host: an Nsight Compute profile of each level kind of one BFS, through the algebra
# level loop (one product launch per level, so that every level is its own kernel in the report).
#   scripts/gpu-ncu-levels.sh BIN_DIR GRAPH SOURCE [ORDERING]
# Writes $OUT/ncu-GRAPH.txt: per launch, duration, DRAM and L2 throughput, achieved occupancy and
# the top warp stall reasons.
set -uo pipefail
bin=$1 graph=$2 source=$3 ordering=${4:-none}
out=${OUT:-gpu-logs}
mkdir -p "$out"
name=$(echo "$graph" | tr ':' '_')-$ordering
command -v ncu >/dev/null || { echo "ncu not found"; exit 1; }
metrics=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors.sum,\
dram__bytes_read.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,\
smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_lg_throttle.ratio,\
smsp__average_warp_latency_issue_stalled_barrier.ratio,smsp__inst_executed.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum,\
lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_sectors_srcunit_tex_op_read.sum
ncu --metrics "$metrics" --csv --print-units base "$bin/bfs_spmv" "$graph" --source "$source" --kernel algebra \
  --reorder "$ordering" --repeat 1 > "$out/ncu-$name.csv" 2> "$out/ncu-$name.err"
echo "ncu exit $? -> $out/ncu-$name.csv"
