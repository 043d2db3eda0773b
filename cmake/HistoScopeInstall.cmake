# The engine as an installed library (component `engine`): its public headers, its static
# libraries, HistoScopeConfig.cmake (find_package(HistoScope) gives HistoScope::engine) and a
# pkg-config file (histoscope.pc). The targets are the build's own (gpu/CMakeLists.txt); here they
# get their export names and an include folder for the installed tree.
include(CMakePackageConfigHelpers)
set(HISTOSCOPE_CMAKE_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/HistoScope)

set(_hs_engine_targets histoscope_engine histoscope_engine_core)
if(HISTOSCOPE_HAVE_CUDA)
  list(APPEND _hs_engine_targets histoscope_cuda)
endif()
foreach(target IN LISTS _hs_engine_targets)
  string(REPLACE "histoscope_" "" export_name ${target})
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${export_name})
endforeach()
foreach(target histoscope_engine histoscope_engine_core)
  set_property(TARGET ${target} PROPERTY INTERFACE_INCLUDE_DIRECTORIES
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/gpu/include> $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
endforeach()

install(TARGETS ${_hs_engine_targets} EXPORT HistoScopeTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT engine)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/gpu/include/histoscope DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT engine)
install(EXPORT HistoScopeTargets NAMESPACE HistoScope:: DESTINATION ${HISTOSCOPE_CMAKE_INSTALL_DIR} COMPONENT engine)
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/HistoScopeConfig.cmake.in
  ${PROJECT_BINARY_DIR}/HistoScopeConfig.cmake INSTALL_DESTINATION ${HISTOSCOPE_CMAKE_INSTALL_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/HistoScopeConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/HistoScopeConfig.cmake ${PROJECT_BINARY_DIR}/HistoScopeConfigVersion.cmake
        DESTINATION ${HISTOSCOPE_CMAKE_INSTALL_DIR} COMPONENT engine)

# pkg-config: relocatable (prefix from the .pc file's own place), static libraries in link order.
file(RELATIVE_PATH HISTOSCOPE_PC_TO_PREFIX /P/${CMAKE_INSTALL_LIBDIR}/pkgconfig /P)
string(REGEX REPLACE "/$" "" HISTOSCOPE_PC_TO_PREFIX "${HISTOSCOPE_PC_TO_PREFIX}")
set(HISTOSCOPE_PC_LIBS "-lhistoscope_engine")
set(HISTOSCOPE_PC_CFLAGS "")
if(HISTOSCOPE_HAVE_CUDA)
  string(APPEND HISTOSCOPE_PC_LIBS " -lhistoscope_cuda")
  set(HISTOSCOPE_PC_CFLAGS " -DHISTOSCOPE_HAVE_CUDA")
endif()
string(APPEND HISTOSCOPE_PC_LIBS " -lhistoscope_engine_core ${OpenMP_CXX_FLAGS}")
if(HISTOSCOPE_HAVE_CUDA)
  string(APPEND HISTOSCOPE_PC_LIBS " -L${CUDAToolkit_LIBRARY_DIR} -lcudart_static -ldl -lrt -lpthread")
endif()
configure_file(${CMAKE_CURRENT_LIST_DIR}/histoscope.pc.in ${PROJECT_BINARY_DIR}/histoscope.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/histoscope.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT engine)
