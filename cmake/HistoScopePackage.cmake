# What a package of HistoScope holds beyond the programs' own install rules: man pages
# (help2man, from each program's --help and --version), bash completion for histoscope-cli, and
# CPack's .deb `histoscope` (the app, the CLI, the benchmark, the desktop entry and icon, the
# Python module, the man pages, the completion and the engine's library and headers).
# Tests: an outside project built against the installed engine, and the .deb unpacked and run.
set(HISTOSCOPE_MAN_DIR ${PROJECT_BINARY_DIR}/man)
find_program(HELP2MAN help2man)
set(_hs_man_pages)
if(HELP2MAN)
  function(_histoscope_man_page target name description)
    if(TARGET ${target})
      set(page ${HISTOSCOPE_MAN_DIR}/${name}.1)
      set(include_args)
      set(include_depends)
      if(ARGN)
        set(include_args --include=${ARGN})
        set(include_depends ${ARGN})
      endif()
      # Offscreen: the app's --help makes a QApplication, which needs no display then.
      add_custom_command(OUTPUT ${page}
        COMMAND ${CMAKE_COMMAND} -E make_directory ${HISTOSCOPE_MAN_DIR}
        COMMAND ${CMAKE_COMMAND} -E env QT_QPA_PLATFORM=offscreen
                ${HELP2MAN} --no-info --section=1 --name=${description} ${include_args}
                --version-string=${PROJECT_VERSION} --output=${page} $<TARGET_FILE:${target}>
        DEPENDS ${target} ${include_depends} VERBATIM COMMENT "man page ${name}(1)")
      set(_hs_man_pages ${_hs_man_pages} ${page} PARENT_SCOPE)
    endif()
  endfunction()
  if(TARGET histoscope-cli)
    # Each command's options, from the CLI itself.
    add_custom_command(OUTPUT ${HISTOSCOPE_MAN_DIR}/histoscope-cli.h2m
      COMMAND ${CMAKE_COMMAND} -E make_directory ${HISTOSCOPE_MAN_DIR}
      COMMAND ${CMAKE_COMMAND} -DCLI=$<TARGET_FILE:histoscope-cli> -DOUTPUT=${HISTOSCOPE_MAN_DIR}/histoscope-cli.h2m
              -P ${PROJECT_SOURCE_DIR}/packaging/man/commands.cmake
      DEPENDS histoscope-cli ${PROJECT_SOURCE_DIR}/packaging/man/commands.cmake VERBATIM)
  endif()
  _histoscope_man_page(histoscope histoscope "exact histograms, scopes and statistics of images, video and cameras")
  _histoscope_man_page(histoscope-cli histoscope-cli "exact histograms of images, video and data from the command line"
                       ${HISTOSCOPE_MAN_DIR}/histoscope-cli.h2m)
  _histoscope_man_page(histoscope-bench histoscope-bench "GPU self-check and benchmark of the HistoScope engine")
  if(_hs_man_pages)
    add_custom_target(histoscope_man ALL DEPENDS ${_hs_man_pages})
    install(FILES ${_hs_man_pages} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT man)
  endif()
else()
  message(STATUS "HistoScope: help2man not found, no man pages")
endif()

if(TARGET histoscope-cli)
  install(FILES ${PROJECT_SOURCE_DIR}/packaging/completion/histoscope-cli.bash
          DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME histoscope-cli COMPONENT runtime)
endif()

# The .deb. Its dependencies on shared libraries come from dpkg-shlibdeps; the Python module is
# built for this python3's ABI, so the package asks for that minor version.
set(CPACK_PACKAGE_NAME histoscope)
set(CPACK_PACKAGE_VENDOR "HistoScope")
set(CPACK_PACKAGE_CONTACT "HistoScope developers <histoscope@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_DESCRIPTION "HistoScope counts exact histograms of images, video, live cameras and raw data on the GPU, or on every CPU core without one. This package holds the desktop app (histoscope), the command line (histoscope-cli), the benchmark, the Python module histoscope (NumPy, PyTorch, CuPy, Dask) and the engine's static library and headers (find_package(HistoScope), pkg-config histoscope).")
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION graphics)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(_hs_deb_depends "")
if(HISTOSCOPE_PYTHON_FOUND)
  math(EXPR _hs_next_minor "${Python_VERSION_MINOR} + 1")
  set(_hs_deb_depends "python3 (>= 3.${Python_VERSION_MINOR}), python3 (<< 3.${_hs_next_minor}), python3-numpy")
  set(CPACK_DEBIAN_PACKAGE_SUGGESTS "python3-dask, python3-distributed, python3-torch")
endif()
set(CPACK_DEBIAN_PACKAGE_DEPENDS "${_hs_deb_depends}")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "gstreamer1.0-plugins-base, gstreamer1.0-plugins-good")
set(CPACK_STRIP_FILES ON)
include(CPack)

if(BUILD_TESTING)
  add_test(NAME install_consumer COMMAND ${CMAKE_COMMAND} -DBUILD=${PROJECT_BINARY_DIR}
           -DWORK=${PROJECT_BINARY_DIR}/test-install -DCXX=${CMAKE_CXX_COMPILER}
           -P ${PROJECT_SOURCE_DIR}/packaging/tests/check_install.cmake)
  set_tests_properties(install_consumer PROPERTIES TIMEOUT 600)
  # With the CLI, the completion's options are checked against each command's --help, and (with
  # help2man) the man page against them, so that none of the three drifts from the others.
  set(_hs_completion_args)
  if(TARGET histoscope-cli)
    set(_hs_completion_args $<TARGET_FILE:histoscope-cli>)
    if(HELP2MAN)
      list(APPEND _hs_completion_args ${HISTOSCOPE_MAN_DIR}/histoscope-cli.1)
    endif()
  endif()
  add_test(NAME bash_completion COMMAND bash ${PROJECT_SOURCE_DIR}/packaging/tests/check_completion.sh
           ${PROJECT_SOURCE_DIR}/packaging/completion/histoscope-cli.bash ${_hs_completion_args})
  if(TARGET histoscope-cli AND HISTOSCOPE_PYTHON_FOUND)
    add_test(NAME package_deb COMMAND ${CMAKE_COMMAND} -DBUILD=${PROJECT_BINARY_DIR}
             -DWORK=${PROJECT_BINARY_DIR}/test-deb -DPYTHON=${Python_EXECUTABLE} -DCXX=${CMAKE_CXX_COMPILER}
             -P ${PROJECT_SOURCE_DIR}/packaging/tests/check_deb.cmake)
    set_tests_properties(package_deb PROPERTIES TIMEOUT 900 RUN_SERIAL ON)
  endif()
endif()
