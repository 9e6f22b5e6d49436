# distopo_add_module(<name> SOURCES ... [PUBLIC_LINK ...] [PRIVATE_LINK ...])
# One library per concern (core, cart, graph, distgraph, neighbor): target
# distopo_<name>, alias distopo::<name>, headers in <name>/include, our
# warnings (build only: never exported), C++20 for consumers (the public
# headers use concepts, ranges and std::span).
function(distopo_add_module name)
  cmake_parse_arguments(PARSE_ARGV 1 module "" "" "SOURCES;PUBLIC_LINK;PRIVATE_LINK")
  set(target distopo_${name})
  add_library(${target} ${module_SOURCES})
  add_library(distopo::${name} ALIAS ${target})
  target_include_directories(${target} PUBLIC
    $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>
    $<INSTALL_INTERFACE:include>)
  target_link_libraries(${target} PUBLIC ${module_PUBLIC_LINK} PRIVATE ${module_PRIVATE_LINK})
  distopo_use_warnings(${target})
  target_compile_features(${target} PUBLIC cxx_std_20)
endfunction()

# distopo_add_internal_target(<name>): distopo::<name>_internal, the module's
# private headers (<name>/src) for its tests and benchmarks, which are the
# only code outside the module allowed to reach into it.
function(distopo_add_internal_target name)
  add_library(distopo_${name}_internal INTERFACE)
  add_library(distopo::${name}_internal ALIAS distopo_${name}_internal)
  target_include_directories(distopo_${name}_internal INTERFACE ${CMAKE_CURRENT_SOURCE_DIR}/src)
  target_link_libraries(distopo_${name}_internal INTERFACE distopo_${name})
endfunction()

# Our warning flags on a library's own sources, as compile options rather than
# a link dependency, so the installed package never mentions them.
function(distopo_use_warnings target)
  target_compile_options(${target} PRIVATE $<TARGET_PROPERTY:distopo_warnings,INTERFACE_COMPILE_OPTIONS>)
endfunction()
