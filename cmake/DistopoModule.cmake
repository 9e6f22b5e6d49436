# distopo_add_module(<name> SOURCES ... [PUBLIC_LINK ...] [PRIVATE_LINK ...])
# One library per concern (core, cart, graph, distgraph): target distopo_<name>,
# alias distopo::<name>, headers in <name>/include, our warnings, C++20 for
# consumers (the public headers use std::span).
function(distopo_add_module name)
  cmake_parse_arguments(PARSE_ARGV 1 module "" "" "SOURCES;PUBLIC_LINK;PRIVATE_LINK")
  set(target distopo_${name})
  add_library(${target} ${module_SOURCES})
  add_library(distopo::${name} ALIAS ${target})
  target_include_directories(${target} PUBLIC
    $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>
    $<INSTALL_INTERFACE:include>)
  target_link_libraries(${target} PUBLIC ${module_PUBLIC_LINK} PRIVATE ${module_PRIVATE_LINK} distopo_warnings)
  target_compile_features(${target} PUBLIC cxx_std_20)
endfunction()
