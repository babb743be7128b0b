# Run at every build (not at configure time), so that a result's context.gpubench.git_commit
# names the commit the binary was built from; "-dirty" marks a build with uncommitted changes.
# Usage: cmake -DSOURCE_DIR=... -DOUT=.../gpubench_git_commit.h -P git_commit.cmake
execute_process(COMMAND git rev-parse --short=12 HEAD WORKING_DIRECTORY ${SOURCE_DIR}
                OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT commit)
  set(commit unknown)
else()
  execute_process(COMMAND git status --porcelain --untracked-files=no WORKING_DIRECTORY ${SOURCE_DIR}
                  OUTPUT_VARIABLE changes ERROR_QUIET)
  if(changes)
    string(APPEND commit "-dirty")
  endif()
endif()
file(WRITE ${OUT}.tmp "#pragma once\n#define GPUBENCH_GIT_COMMIT \"${commit}\"\n")
# Unchanged content keeps the old file, so nothing that includes it is rebuilt.
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different ${OUT}.tmp ${OUT})
file(REMOVE ${OUT}.tmp)
