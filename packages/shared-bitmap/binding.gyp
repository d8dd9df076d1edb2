# The native half of @herald/shared-bitmap: mmap/munmap/madvise/flock for Node
# (native/shared_bitmap.c, plain C over node_api.h). Built by
# scripts/build-native.js (the package's install script) with node-gyp.
{
  "targets": [
    {
      "target_name": "shared_bitmap",
      "sources": ["native/shared_bitmap.c"],
      "defines": ["NAPI_VERSION=8", "_GNU_SOURCE"],
      "cflags_c": ["-std=c11", "-O2", "-Wall", "-Wextra"]
    }
  ]
}
