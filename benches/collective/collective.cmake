# The collective suite: NCCL loaded at run time (only nccl.h is needed to build), and MPI for
# runs of one process per GPU across nodes, loaded at run time too (only mpi.h is needed): the
# one gpubench starts without MPI installed. GPUBENCH_MPI is on where MPI's header is found.
gpubench_library_suite(collective nccl.h)
if(NOT TARGET gpubench_suite_collective)
  return()
endif()
enable_language(C)  # FindMPI probes its C bindings with the C compiler
find_package(MPI COMPONENTS C QUIET)
option(GPUBENCH_MPI "Multi-process and multi-node collective runs through MPI" ${MPI_C_FOUND})
if(GPUBENCH_MPI)
  if(NOT MPI_C_FOUND)
    message(FATAL_ERROR "gpubench: GPUBENCH_MPI is on but MPI was not found (install libopenmpi-dev)")
  endif()
  target_sources(gpubench_suite_collective PRIVATE ${CMAKE_CURRENT_LIST_DIR}/mpi/mpi_bootstrap.cpp)
  # The C API's header only: Open MPI's C++ bindings would want libmpi_cxx linked.
  set(no_cxx_bindings OMPI_SKIP_MPICXX MPICH_SKIP_MPICXX)
  target_include_directories(gpubench_suite_collective PRIVATE ${MPI_C_INCLUDE_DIRS})
  target_compile_definitions(gpubench_suite_collective PRIVATE ${no_cxx_bindings})
  if(GPUBENCH_BUILD_TESTS)
    # The CPU test's mpirun target: the driver over real MPI with a fake engine for NCCL.
    set(dir ${CMAKE_CURRENT_LIST_DIR})
    add_executable(gpubench_collective_mpi_probe ${PROJECT_SOURCE_DIR}/tests/collective_mpi_probe.cpp
                   ${dir}/bootstrap.cpp ${dir}/driver.cpp ${dir}/collective_model.cpp ${dir}/mpi/mpi_bootstrap.cpp
                   ${PROJECT_SOURCE_DIR}/harness/system/library.cpp ${PROJECT_SOURCE_DIR}/harness/model/number_text.cpp
                   ${PROJECT_SOURCE_DIR}/harness/core/batching.cpp)
    target_include_directories(gpubench_collective_mpi_probe PRIVATE ${PROJECT_SOURCE_DIR} ${MPI_C_INCLUDE_DIRS})
    target_link_libraries(gpubench_collective_mpi_probe PRIVATE ${CMAKE_DL_LIBS})
    target_compile_definitions(gpubench_collective_mpi_probe PRIVATE ${no_cxx_bindings})
    set_target_properties(gpubench_collective_mpi_probe PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
  endif()
else()
  message(STATUS "gpubench: MPI not used: collective runs are single-process")
  target_sources(gpubench_suite_collective PRIVATE ${CMAKE_CURRENT_LIST_DIR}/mpi/no_mpi_bootstrap.cpp)
endif()
