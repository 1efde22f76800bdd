# Writes a C++ source that holds the catalog YAML files as raw string literals.
# Usage: cmake -DOUT=... -DGPUS=... -DLINKS=... -P embed_catalog.cmake
file(READ ${GPUS} gpus_text)
file(READ ${LINKS} links_text)
set(delim "linksim_catalog")
file(WRITE ${OUT} "// Generated from data/catalog/*.yaml by scripts/embed_catalog.cmake. Do not edit.\n"
  "namespace linksim::detail {\n"
  "extern const char* const kBuiltinGpuCatalogPath = \"${GPUS}\";\n"
  "extern const char* const kBuiltinLinkCatalogPath = \"${LINKS}\";\n"
  "extern const char* const kBuiltinGpuCatalogYaml = R\"${delim}(${gpus_text})${delim}\";\n"
  "extern const char* const kBuiltinLinkCatalogYaml = R\"${delim}(${links_text})${delim}\";\n"
  "}  // namespace linksim::detail\n")
