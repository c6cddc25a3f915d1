# ctest case: install the already-built gbcuda into a prefix, then configure, build and run two
# projects against it with find_package(gbcuda): tests/consumer and examples/ (every example run), the way a user
# builds them on their own.
file(REMOVE_RECURSE ${WORK_DIR})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BINARY_DIR} --prefix ${WORK_DIR}/prefix
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "install failed (${rc})")
endif()

# Configures and builds the project in `source` against the install (in WORK_DIR/name), then runs
# `run` (a program and its arguments, relative to that build folder).
function(build_and_run name source)
  set(build ${WORK_DIR}/${name})
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${source} -B ${build} -G ${GENERATOR}
                          -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix -DCMAKE_BUILD_TYPE=Release
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "configuring ${name} against the install failed (${rc})")
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} --build ${build} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "building ${name} against the install failed (${rc})")
  endif()
  list(POP_FRONT ARGN program)
  execute_process(COMMAND ${build}/${program} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out)
  message(STATUS "${out}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "the installed ${name}'s ${program} failed (${rc})")
  endif()
endfunction()

build_and_run(consumer ${SOURCE_DIR}/tests/consumer consumer)
build_and_run(examples ${SOURCE_DIR}/examples example_bfs ${SOURCE_DIR}/matrices/karate.mtx 0 host)
# The other examples, from the same build.
build_and_run(examples ${SOURCE_DIR}/examples example_sssp ${SOURCE_DIR}/matrices/karate.mtx 0 host)
build_and_run(examples ${SOURCE_DIR}/examples example_pagerank ${SOURCE_DIR}/matrices/karate.mtx host)
build_and_run(examples ${SOURCE_DIR}/examples example_cc ${SOURCE_DIR}/matrices/karate.mtx host)
build_and_run(examples ${SOURCE_DIR}/examples example_tc ${SOURCE_DIR}/matrices/karate.mtx host)
