# The layers are shared libraries (libassay_<layer>.so): the CLI, the Python module and C++
# programs built against an installed assay share one copy, and an installed layer brings only
# its public dependencies to a consumer's link (docs/install.md). -DBUILD_SHARED_LIBS=OFF builds
# static libraries instead.
option(BUILD_SHARED_LIBS "Build the layers as shared libraries" ON)

# assay_layer(name): library assay_<name> (alias assay::<name>, as installed) from
# src/<name>/*.cpp, public headers in include/. Layers are listed in the global property
# ASSAY_LAYERS, in creation order (bottom first), for cmake/AssayInstall.cmake.
function(assay_layer name)
  file(GLOB_RECURSE srcs CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/${name}/*.cpp)
  add_library(assay_${name} ${srcs})
  add_library(assay::${name} ALIAS assay_${name})
  target_include_directories(assay_${name}
    PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
    PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_compile_features(assay_${name} PUBLIC cxx_std_20)
  # No assay_<name>_EXPORTS define (nothing uses it): a layer compiles with the same command
  # shared or static, so the two builds share the compiler cache.
  set_target_properties(assay_${name} PROPERTIES DEFINE_SYMBOL "")
  set_property(GLOBAL APPEND PROPERTY ASSAY_LAYERS ${name})
endfunction()

# assay_add_test(file): one GoogleTest executable per test file, linked to every layer; the
# executable is named after the folder and file (tests/cpp/core/test_csv.cpp -> core_test_csv).
function(assay_add_test src)
  get_filename_component(stem ${src} NAME_WE)
  get_filename_component(dir ${src} DIRECTORY)
  get_filename_component(layer ${dir} NAME)
  set(target ${layer}_${stem})
  add_executable(${target} ${src})
  target_link_libraries(${target} PRIVATE assay_overview assay_batch GTest::gtest_main GTest::gmock)
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/tests/cpp)
  target_compile_definitions(${target} PRIVATE ASSAY_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
                                               ASSAY_BINARY_DIR="${PROJECT_BINARY_DIR}")
  gtest_discover_tests(${target} DISCOVERY_TIMEOUT 60)
  set_property(GLOBAL APPEND PROPERTY ASSAY_CPP_TESTS ${target})
endfunction()
