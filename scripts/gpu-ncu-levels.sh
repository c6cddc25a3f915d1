#!/usr/bin/env bash
# On the GPU host: an Nsight Compute profile of each level kind of one BFS, through the algebra
# level loop (one product launch per level, so that every level is its own kernel in the report).
#   scripts/gpu-ncu-levels.sh BIN_DIR GRAPH SOURCE [ORDERING]
# Writes $OUT/ncu-GRAPH-ORDERING.csv (scripts/ncu-levels-table.py prints it as a table): per
# launch, duration, DRAM, L2 and L1 traffic and throughput, occupancy, issue activity and the
# main warp stall reasons. NCU_LAUNCHES=N profiles only the first N levels' launches (bfs_spmv's
# warm-up search comes first; on a large graph each profiled launch is replayed many times).
set -uo pipefail
bin=$1 graph=$2 source=$3 ordering=${4:-none}
out=${OUT:-gpu-logs}
mkdir -p "$out"
name=$(basename "$graph" .gbc | tr ":" "_")-$ordering
command -v ncu >/dev/null || { echo "ncu not found"; exit 1; }
# time; DRAM; L2 and L1 throughput and requests (what bounds a level that is not latency-bound);
# occupancy, issue activity and the main stall reasons (what bounds one that is)
metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,\
lts__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_requests_srcunit_tex.sum,lts__t_sectors_srcunit_tex.sum,\
lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_requests_srcunit_tex_op_atom.sum,\
l1tex__throughput.avg.pct_of_peak_sustained_active,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,\
l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum,\
sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,\
smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_lg_throttle.ratio,\
smsp__average_warp_latency_issue_stalled_barrier.ratio,smsp__average_warp_latency_issue_stalled_membar.ratio,\
l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum
limit=()
[ -n "${NCU_LAUNCHES:-}" ] && limit=(--launch-count "$NCU_LAUNCHES")
GBCUDA_CALIBRATION=${GBCUDA_CALIBRATION:-off} ncu -k regex:product_kernel "${limit[@]}" --metrics "$metrics" --csv --print-units base "$bin/bfs_spmv" "$graph" --source "$source" --kernel algebra \
  --reorder "$ordering" --repeat 1 > "$out/ncu-$name.csv" 2> "$out/ncu-$name.err"
echo "ncu exit $? -> $out/ncu-$name.csv"
