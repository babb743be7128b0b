# cmake --install and cpack -G DEB (docs/install.md). The installed layout mirrors the source
# tree under share/gpubench, so that the scripts and the PyTorch peers find configs/ as they do
# in a clone:
#   bin/gpubench
#   share/gpubench/configs/              peaks, presets, baselines, tolerances, shapes, layer sets
#   share/gpubench/scripts/              nightly.sh, slurm_collective.sh, peers/
#   share/doc/<package>/                 README.md, docs/, copyright, changelog
#   share/man/man1/gpubench.1
# A -DGPUBENCH_CUDA=OFF build compares, checks and reports but measures nothing: its package is
# gpubench-nocuda, which takes the place of gpubench.
if(GPUBENCH_CUDA)
  set(CPACK_PACKAGE_NAME gpubench)
  set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "GPU node benchmarks and acceptance checks")
else()
  set(CPACK_PACKAGE_NAME gpubench-nocuda)
  set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "GPU node benchmark results: compare, check and report (no CUDA)")
  set(CPACK_DEBIAN_PACKAGE_CONFLICTS gpubench)
endif()
set(GPUBENCH_SHARE_DIR ${CMAKE_INSTALL_DATADIR}/gpubench)
set(GPUBENCH_DOC_DIR ${CMAKE_INSTALL_DATAROOTDIR}/doc/${CPACK_PACKAGE_NAME})

install(TARGETS gpubench RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY configs/ DESTINATION ${GPUBENCH_SHARE_DIR}/configs)
install(PROGRAMS scripts/nightly.sh scripts/slurm_collective.sh DESTINATION ${GPUBENCH_SHARE_DIR}/scripts)
install(DIRECTORY scripts/peers DESTINATION ${GPUBENCH_SHARE_DIR}/scripts USE_SOURCE_PERMISSIONS
        FILES_MATCHING PATTERN "*.py" PATTERN "__pycache__" EXCLUDE)
install(FILES README.md cmake/debian/copyright DESTINATION ${GPUBENCH_DOC_DIR})
install(DIRECTORY docs/ DESTINATION ${GPUBENCH_DOC_DIR})

# The manual page, and a native package's changelog, compressed the same way every time
# (gzip -n), as Debian wants them; the changelog's newest entry must name the project's VERSION.
configure_file(cmake/debian/gpubench.1.in ${CMAKE_BINARY_DIR}/gpubench.1 @ONLY)
file(STRINGS cmake/debian/changelog GPUBENCH_CHANGELOG_HEAD LIMIT_COUNT 1)
if(NOT GPUBENCH_CHANGELOG_HEAD MATCHES "^gpubench \\(${PROJECT_VERSION}\\) ")
  message(FATAL_ERROR "cmake/debian/changelog: its newest entry is not version ${PROJECT_VERSION}")
endif()
set(GPUBENCH_MANPAGE ${CMAKE_BINARY_DIR}/gpubench.1.gz)
set(GPUBENCH_CHANGELOG ${CMAKE_BINARY_DIR}/changelog.gz)
add_custom_command(OUTPUT ${GPUBENCH_MANPAGE} ${GPUBENCH_CHANGELOG}
                   COMMAND gzip -9nc ${CMAKE_BINARY_DIR}/gpubench.1 > ${GPUBENCH_MANPAGE}
                   COMMAND gzip -9nc ${PROJECT_SOURCE_DIR}/cmake/debian/changelog > ${GPUBENCH_CHANGELOG}
                   DEPENDS ${CMAKE_BINARY_DIR}/gpubench.1 ${PROJECT_SOURCE_DIR}/cmake/debian/changelog)
add_custom_target(gpubench_docs ALL DEPENDS ${GPUBENCH_MANPAGE} ${GPUBENCH_CHANGELOG})
install(FILES ${GPUBENCH_MANPAGE} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${GPUBENCH_CHANGELOG} DESTINATION ${GPUBENCH_DOC_DIR})

# Depends holds only what the binary links (the C library, from dpkg-shlibdeps). Everything of
# CUDA is loaded at run time and a missing library skips the suites that need it, with the
# loader's reason, so it is suggested, not required or recommended (apt installs recommends):
# the driver (often from NVIDIA's .run installer, which dpkg cannot see: apt would pull in a
# second one), cuBLAS (gemm, attention), cuDNN (conv, attention), NCCL (collective), Open MPI
# (collective across processes), libnuma (host buffers on a chosen NUMA node), and python3 for
# the PyTorch peers. The names are those of NVIDIA's CUDA repository, then Debian's and Ubuntu's.
set(suggests "python3")
if(GPUBENCH_CUDA)
  # A binary with CUDA 13's static runtime needs a driver of the 580 series or newer (12: 525).
  if(CUDAToolkit_VERSION_MAJOR GREATER_EQUAL 13)
    set(driver " (>= 580)")
  elseif(CUDAToolkit_VERSION_MAJOR EQUAL 12)
    set(driver " (>= 525)")
  else()
    set(driver "")
  endif()
  list(APPEND suggests "libcuda1${driver} | libcuda.so.1${driver}" "libcublas-13-0 | libcublas-12-9 | libcublas12"
       "libcudnn9-cuda-13 | libcudnn9-cuda-12" "libnccl2" "libopenmpi3 | libopenmpi3t64" "libnuma1")
endif()
string(JOIN ", " CPACK_DEBIAN_PACKAGE_SUGGESTS ${suggests})

set(GPUBENCH_PACKAGE_MAINTAINER "gpubench maintainers <gpubench@example.org>" CACHE STRING
    "the package's Maintainer field: a site that builds its own package puts its address here")
set(CPACK_PACKAGE_CONTACT "${GPUBENCH_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_VENDOR "gpubench")
string(CONCAT CPACK_DEBIAN_PACKAGE_DESCRIPTION
       "gpubench measures what decides whether a GPU node delivers what it should:\n"
       "memory and host-device bandwidth, launch costs, GEMM, convolution, attention\n"
       "and collectives, each verified, and checks a run against a baseline of the\n"
       "GPU model, with the exit code as the verdict.")
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
include(CPack)
