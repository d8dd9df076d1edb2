/*
 * shared_bitmap: the few system calls Node cannot make by itself, for
 * @herald/shared-bitmap. Plain C over node_api.h (N-API 8), no dependency.
 *
 *   map(path, flags, length) -> ArrayBuffer
 *     Opens `path`, optionally creates it (CREATE: O_CREAT|O_EXCL, mode 0640:
 *     its user writes, its group (the executors of the host) reads, set with
 *     fchmod so the process umask cannot widen or narrow it),
 *     optionally takes an exclusive, non-blocking flock held until unmap
 *     (LOCK), grows it to `length` bytes if it is shorter and the mapping is
 *     writable (posix_fallocate: the space is reserved now, so a full tmpfs is
 *     an ENOSPC here instead of a SIGBUS on some later store), and maps
 *     `length` bytes (0: the whole file) MAP_SHARED with PROT_READ, plus
 *     PROT_WRITE when WRITABLE. POPULATE adds MAP_POPULATE (page tables filled
 *     now instead of on first touch). A read-only mapping never extends past
 *     the end of the file (that would be a SIGBUS on access): asking for more
 *     is an EINVAL. An empty file maps to an empty, unmapped ArrayBuffer.
 *     The ArrayBuffer is external: its memory is the mapping, shared with
 *     every process that maps the same file. Its finalizer munmaps it.
 *   unmap(buffer) -> boolean
 *     Detaches the ArrayBuffer (every view over it becomes length 0, so no JS
 *     can touch unmapped memory), munmaps it and releases the lock. True if
 *     it was mapped by map() and still was; false otherwise (a second call).
 *   advise(buffer, advice) -> void
 *     madvise over the whole mapping; advice is one of 'normal', 'random',
 *     'sequential', 'willneed', 'dontneed', 'hugepage', 'nohugepage'.
 *
 * Errors from open/flock/fstat/posix_fallocate/mmap/madvise are thrown as JS
 * Errors shaped like Node's own fs errors: message "<CODE>: <strerror>,
 * <syscall> '<path>'", and `code` ('ENOENT'), `errno` (negative, as Node
 * does), `syscall` and `path` properties.
 */
#define NAPI_VERSION 8
#include <node_api.h>
#include <uv.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

enum {
  FLAG_WRITABLE = 1,
  FLAG_CREATE = 2,
  FLAG_LOCK = 4,
  FLAG_POPULATE = 8,
};

/* One live mapping, attached to its ArrayBuffer with napi_wrap. */
typedef struct {
  void* addr;
  size_t length;
  int lock_fd; /* the flock'ed descriptor, or -1 */
} mapping_t;

#define CALL(env, call)                                   \
  do {                                                    \
    if ((call) != napi_ok) return throw_last_napi(env);   \
  } while (0)

static napi_value throw_last_napi(napi_env env) {
  const napi_extended_error_info* info = NULL;
  bool pending = false;
  napi_is_exception_pending(env, &pending);
  if (!pending) {
    napi_get_last_error_info(env, &info);
    napi_throw_error(env, NULL, info != NULL && info->error_message != NULL ? info->error_message : "shared_bitmap: N-API call failed");
  }
  return NULL;
}

static void set_string(napi_env env, napi_value object, const char* key, const char* value) {
  napi_value v;
  if (napi_create_string_utf8(env, value, NAPI_AUTO_LENGTH, &v) == napi_ok) napi_set_named_property(env, object, key, v);
}

/* Throws an Error shaped like Node's fs errors for `err` (an errno value); `path` may be NULL. */
static napi_value throw_errno(napi_env env, int err, const char* syscall, const char* path) {
  const char* code = uv_err_name(-err);
  char message[4096 + 256];
  if (path != NULL) snprintf(message, sizeof message, "%s: %s, %s '%s'", code, strerror(err), syscall, path);
  else snprintf(message, sizeof message, "%s: %s, %s", code, strerror(err), syscall);
  napi_value msg, error, errno_value;
  if (napi_create_string_utf8(env, message, NAPI_AUTO_LENGTH, &msg) != napi_ok) return NULL;
  if (napi_create_error(env, NULL, msg, &error) != napi_ok) return NULL;
  set_string(env, error, "code", code);
  if (napi_create_int32(env, -err, &errno_value) == napi_ok) napi_set_named_property(env, error, "errno", errno_value);
  set_string(env, error, "syscall", syscall);
  if (path != NULL) set_string(env, error, "path", path);
  napi_throw(env, error);
  return NULL;
}

static void release(mapping_t* m) {
  if (m->addr != NULL) munmap(m->addr, m->length);
  if (m->lock_fd >= 0) close(m->lock_fd); /* closing the last descriptor drops the flock */
  m->addr = NULL;
  m->lock_fd = -1;
}

/* The ArrayBuffer was collected without an explicit unmap. */
static void finalize_mapping(napi_env env, void* data, void* hint) {
  (void)env;
  (void)hint;
  mapping_t* m = data;
  release(m);
  free(m);
}

static napi_value map(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  CALL(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 3) {
    napi_throw_type_error(env, NULL, "map(path, flags, length): 3 arguments expected");
    return NULL;
  }
  char path[4096];
  size_t path_len = 0;
  if (napi_get_value_string_utf8(env, argv[0], path, sizeof path, &path_len) != napi_ok) {
    napi_throw_type_error(env, NULL, "map: path must be a string");
    return NULL;
  }
  if (path_len >= sizeof path - 1) {
    napi_throw_range_error(env, NULL, "map: path too long");
    return NULL;
  }
  uint32_t flags = 0;
  int64_t wanted = 0;
  if (napi_get_value_uint32(env, argv[1], &flags) != napi_ok || napi_get_value_int64(env, argv[2], &wanted) != napi_ok || wanted < 0) {
    napi_throw_type_error(env, NULL, "map: flags must be a uint32 and length a number >= 0");
    return NULL;
  }
  const int writable = (flags & FLAG_WRITABLE) != 0;

  int open_flags = (writable ? O_RDWR : O_RDONLY) | O_CLOEXEC;
  if (flags & FLAG_CREATE) open_flags |= O_CREAT | O_EXCL;
  int fd = open(path, open_flags, 0640);
  if (fd < 0) return throw_errno(env, errno, "open", path);
  if ((flags & FLAG_CREATE) && fchmod(fd, 0640) != 0) {
    int err = errno;
    close(fd);
    return throw_errno(env, err, "fchmod", path);
  }

  if ((flags & FLAG_LOCK) && flock(fd, LOCK_EX | LOCK_NB) != 0) {
    int err = errno;
    close(fd);
    return throw_errno(env, err, "flock", path);
  }
  struct stat st;
  if (fstat(fd, &st) != 0) {
    int err = errno;
    close(fd);
    return throw_errno(env, err, "fstat", path);
  }
  if (S_ISDIR(st.st_mode)) {
    close(fd);
    return throw_errno(env, EISDIR, "map", path);
  }
  size_t length = wanted > 0 ? (size_t)wanted : (size_t)st.st_size;
  if ((off_t)length > st.st_size) {
    if (!writable) {
      close(fd);
      return throw_errno(env, EINVAL, "map (read-only, past the end of the file)", path);
    }
    /* posix_fallocate returns the error instead of setting errno. */
    int err = posix_fallocate(fd, 0, (off_t)length);
    if (err != 0) {
      close(fd);
      return throw_errno(env, err, "posix_fallocate", path);
    }
  }

  napi_value buffer;
  if (length == 0) {
    close(fd);
    CALL(env, napi_create_arraybuffer(env, 0, NULL, &buffer));
    return buffer;
  }
  int prot = PROT_READ | (writable ? PROT_WRITE : 0);
  int mmap_flags = MAP_SHARED | ((flags & FLAG_POPULATE) ? MAP_POPULATE : 0);
  void* addr = mmap(NULL, length, prot, mmap_flags, fd, 0);
  if (addr == MAP_FAILED) {
    int err = errno;
    close(fd);
    return throw_errno(env, err, "mmap", path);
  }
  mapping_t* m = malloc(sizeof *m);
  if (m == NULL) {
    munmap(addr, length);
    close(fd);
    return throw_errno(env, ENOMEM, "malloc", path);
  }
  m->addr = addr;
  m->length = length;
  if (flags & FLAG_LOCK) {
    m->lock_fd = fd;
  } else {
    m->lock_fd = -1;
    close(fd); /* the mapping keeps the file open */
  }
  /* No finalizer on the buffer itself: the wrap below owns the mapping, so
     that unmap() can find it again (napi_remove_wrap) and cancel it. */
  if (napi_create_external_arraybuffer(env, addr, length, NULL, NULL, &buffer) != napi_ok ||
      napi_wrap(env, buffer, m, finalize_mapping, NULL, NULL) != napi_ok) {
    release(m);
    free(m);
    return throw_last_napi(env);
  }
  return buffer;
}

static napi_value unmap(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  napi_value result;
  CALL(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  bool is_buffer = false;
  if (argc < 1 || napi_is_arraybuffer(env, argv[0], &is_buffer) != napi_ok || !is_buffer) {
    napi_throw_type_error(env, NULL, "unmap(buffer): an ArrayBuffer returned by map() expected");
    return NULL;
  }
  void* data = NULL;
  if (napi_remove_wrap(env, argv[0], &data) != napi_ok || data == NULL) {
    /* Not ours, or already unmapped: nothing to do. */
    napi_value ignored;
    napi_get_and_clear_last_exception(env, &ignored);
    CALL(env, napi_get_boolean(env, false, &result));
    return result;
  }
  /* Detach first: from here on no JS view can reach the pages we free. */
  CALL(env, napi_detach_arraybuffer(env, argv[0]));
  mapping_t* m = data;
  release(m);
  free(m);
  CALL(env, napi_get_boolean(env, true, &result));
  return result;
}

static napi_value advise(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  CALL(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  void* data = NULL;
  char name[32];
  size_t name_len = 0;
  if (argc < 2 || napi_unwrap(env, argv[0], &data) != napi_ok || data == NULL ||
      napi_get_value_string_utf8(env, argv[1], name, sizeof name, &name_len) != napi_ok) {
    napi_value ignored;
    napi_get_and_clear_last_exception(env, &ignored);
    napi_throw_type_error(env, NULL, "advise(buffer, advice): a mapped ArrayBuffer and an advice name expected");
    return NULL;
  }
  static const struct { const char* name; int advice; } table[] = {
    { "normal", MADV_NORMAL },
    { "random", MADV_RANDOM },
    { "sequential", MADV_SEQUENTIAL },
    { "willneed", MADV_WILLNEED },
    { "dontneed", MADV_DONTNEED },
#ifdef MADV_HUGEPAGE
    { "hugepage", MADV_HUGEPAGE },
    { "nohugepage", MADV_NOHUGEPAGE },
#endif
  };
  mapping_t* m = data;
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
    if (strcmp(name, table[i].name) == 0) {
      if (madvise(m->addr, m->length, table[i].advice) != 0) {
        char syscall[64];
        snprintf(syscall, sizeof syscall, "madvise(%s)", name);
        return throw_errno(env, errno, syscall, NULL);
      }
      return NULL;
    }
  }
  napi_throw_range_error(env, NULL, "advise: unknown advice name");
  return NULL;
}

static napi_value init(napi_env env, napi_value exports) {
  napi_property_descriptor props[] = {
    { "map", NULL, map, NULL, NULL, NULL, napi_enumerable, NULL },
    { "unmap", NULL, unmap, NULL, NULL, NULL, napi_enumerable, NULL },
    { "advise", NULL, advise, NULL, NULL, NULL, napi_enumerable, NULL },
  };
  CALL(env, napi_define_properties(env, exports, sizeof props / sizeof props[0], props));
  napi_value constants, v;
  CALL(env, napi_create_object(env, &constants));
  static const struct { const char* name; uint32_t value; } flag_names[] = {
    { "WRITABLE", FLAG_WRITABLE }, { "CREATE", FLAG_CREATE }, { "LOCK", FLAG_LOCK }, { "POPULATE", FLAG_POPULATE },
  };
  for (size_t i = 0; i < sizeof flag_names / sizeof flag_names[0]; i++) {
    CALL(env, napi_create_uint32(env, flag_names[i].value, &v));
    CALL(env, napi_set_named_property(env, constants, flag_names[i].name, v));
  }
  CALL(env, napi_set_named_property(env, exports, "flags", constants));
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
