# Embeds the chart library (vega, vega-lite, vega-embed from npm, pinned by
# report/js/package-lock.json) into assay_report, so every HTML report is one self-contained page
# that works offline. cmake/embed_chart_library.py writes a generated .cpp at build time; it is
# regenerated whenever the lock, a package's package.json or its minified build changes.
set(ASSAY_JS_DIR ${PROJECT_SOURCE_DIR}/report/js)
set(ASSAY_JS_EMBED_SCRIPT ${PROJECT_SOURCE_DIR}/cmake/embed_chart_library.py)
set(ASSAY_JS_DEPENDS ${ASSAY_JS_DIR}/package-lock.json ${ASSAY_JS_EMBED_SCRIPT})
foreach(pkg vega vega-lite vega-embed)
  set(js ${ASSAY_JS_DIR}/node_modules/${pkg}/build/${pkg}.min.js)
  if(NOT EXISTS ${js})
    message(FATAL_ERROR
      "The chart library is not installed: ${js} is missing.\n"
      "Run scripts/install-deps.sh (or `make build`), which runs `npm ci` in report/js.")
  endif()
  list(APPEND ASSAY_JS_DEPENDS ${js} ${ASSAY_JS_DIR}/node_modules/${pkg}/package.json)
endforeach()

set(ASSAY_JS_GENERATED ${PROJECT_BINARY_DIR}/generated/report/chart_library.cpp)
add_custom_command(
  OUTPUT ${ASSAY_JS_GENERATED}
  COMMAND ${Python3_EXECUTABLE} ${ASSAY_JS_EMBED_SCRIPT} ${ASSAY_JS_DIR} ${ASSAY_JS_GENERATED}
  DEPENDS ${ASSAY_JS_DEPENDS}
  COMMENT "Embedding the chart library (vega, vega-lite, vega-embed)"
  VERBATIM)
target_sources(assay_report PRIVATE ${ASSAY_JS_GENERATED})
