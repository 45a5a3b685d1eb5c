# The installed package: headers, the core and simulator libraries, the binaries, and the reference
# recorder, so another CMake project can `find_package(accel_sim CONFIG)` and link accel_sim::core /
# accel_sim::sim (and, with COMPONENTS torch, accel_sim::torch), and an installed accel-sim finds
# golden/record without a checkout.
#
# Headers go to include/accel_sim/<layer>/ and both include/ and include/accel_sim/ are on the interface
# include path: consumers write <accel_sim/core/...>, while the headers keep including each other as
# "core/x.hpp" / "x.hpp" exactly as in the source tree (so the lead's edits need no rewrite to install).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(ACCEL_SIM_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/accel_sim)
set(ACCEL_SIM_SHARE_DIR ${CMAKE_INSTALL_DATADIR}/accel-sim)

# Exported names: accel_sim::core, accel_sim::trace (needed by sim's headers and link line), accel_sim::sim.
set_target_properties(accel_core PROPERTIES EXPORT_NAME core)
set_target_properties(accel_trace PROPERTIES EXPORT_NAME trace)
set_target_properties(accel_sim PROPERTIES EXPORT_NAME sim)
target_include_directories(accel_core INTERFACE $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>
                                                $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/accel_sim>)
# Inside this build <accel_sim/...> resolves too (a link to the source tree), so code written against the
# installed layout, like examples/libtorch_training, also builds in-tree.
# One link per layer, not one to the source root, which holds this build folder (a link loop for tree walkers).
file(REMOVE ${PROJECT_BINARY_DIR}/include/accel_sim)
file(MAKE_DIRECTORY ${PROJECT_BINARY_DIR}/include/accel_sim)
foreach(layer core trace sim libtorch)
  file(CREATE_LINK ${PROJECT_SOURCE_DIR}/${layer} ${PROJECT_BINARY_DIR}/include/accel_sim/${layer} SYMBOLIC)
endforeach()
target_include_directories(accel_core INTERFACE $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/include>)
# The same names inside this build, so examples/ build in-tree or against an install unchanged.
add_library(accel_sim::core ALIAS accel_core)
add_library(accel_sim::trace ALIAS accel_trace)
add_library(accel_sim::sim ALIAS accel_sim)

# Every header of the installed layers (sim's headers reach into trace/, trace's into core/), but the switch of
# the planted-bug test build, which no installed header includes.
foreach(layer core trace sim)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${layer}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/accel_sim/${layer}
          FILES_MATCHING PATTERN "*.hpp" PATTERN "mutation.hpp" EXCLUDE)
endforeach()

install(TARGETS accel_core accel_trace accel_sim EXPORT accel_sim_targets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT accel_sim_targets NAMESPACE accel_sim:: DESTINATION ${ACCEL_SIM_CMAKE_DIR})

# The LibTorch sampler, exported on its own so that consumers of the core never need LibTorch.
if(TARGET accel_torch)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/libtorch/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/accel_sim/libtorch
          FILES_MATCHING PATTERN "*.hpp")
  install(TARGETS accel_torch EXPORT accel_sim_torch_targets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(EXPORT accel_sim_torch_targets NAMESPACE accel_sim:: DESTINATION ${ACCEL_SIM_CMAKE_DIR})
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples/libtorch_training/ DESTINATION ${ACCEL_SIM_SHARE_DIR}/examples/libtorch_training)
endif()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples/consumer/ DESTINATION ${ACCEL_SIM_SHARE_DIR}/examples/consumer)

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/accel_simConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/accel_simConfig.cmake INSTALL_DESTINATION ${ACCEL_SIM_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/accel_simConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/accel_simConfig.cmake ${PROJECT_BINARY_DIR}/accel_simConfigVersion.cmake
        DESTINATION ${ACCEL_SIM_CMAKE_DIR})

# The reference recorder: `accel-sim compare --reference` looks for it in ../share/accel-sim next to its
# executable. refresh and compare-random stay in the checkout: they work on golden/cases and a build tree.
install(PROGRAMS ${PROJECT_SOURCE_DIR}/golden/record ${PROJECT_SOURCE_DIR}/golden/setup-reference
        DESTINATION ${ACCEL_SIM_SHARE_DIR}/golden)
install(FILES ${PROJECT_SOURCE_DIR}/golden/reference_venv.sh DESTINATION ${ACCEL_SIM_SHARE_DIR}/golden)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/golden/reference/ DESTINATION ${ACCEL_SIM_SHARE_DIR}/golden/reference
        FILES_MATCHING PATTERN "*.py" PATTERN "*.sh")
install(PROGRAMS ${PROJECT_SOURCE_DIR}/golden/reference/setup-torch2 DESTINATION ${ACCEL_SIM_SHARE_DIR}/golden/reference)
install(FILES ${PROJECT_SOURCE_DIR}/golden/SCHEMA.md DESTINATION ${ACCEL_SIM_SHARE_DIR}/golden)
