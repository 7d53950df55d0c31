/* The plug-in device ABI: how a shared library adds a device type (memory, streams, events,
 * copies) and kernels for oar's ops, without linking against oar's C++.
 *
 * Plain C, so a vendor can build a plug-in with any compiler. oar loads a plug-in with dlopen
 * (oar.device.load_custom_device(path), or every lib*.so under OAR_CUSTOM_DEVICE_ROOT at start)
 * and calls its exported `oar_plugin_init` once with a registrar. The plug-in registers one or
 * more device types and kernels through it; every pointer it passes must stay valid until exit.
 *
 * Contract for kernels (one per op name, device type and dtype):
 * - inputs are the op's tensor arguments in the order of its spec (oar/ops/specs/<family>.yaml), after
 *   type promotion; an absent optional tensor has data == NULL and ndim == -1; a list argument
 *   (Tensor[], e.g. concat's x) contributes its tensors in order, and an int attribute named
 *   "<argument>_count" gives how many;
 * - attributes are the op's other arguments, by their spec names (absent optionals: kind NONE);
 * - outputs are allocated by oar on the kernel's device (shape and dtype from the op's shape
 *   rule), contiguous; the kernel only writes them. One exception: the internal op `copy_`
 *   writes inputs[0] (broadcast to the output's shape, cast to its dtype) into outputs[0], which
 *   may be any view (strides as given);
 * - in-place kernels, which oar launches directly (oar._C._launch_kernel) rather than for an
 *   op: their outputs are the SAME tensors as the inputs they update (they alias; the kernel
 *   reads element i of an input and writes element i of its output), and oar passes them all
 *   contiguous. They are the fused optimizer updates, one parameter per call, keyed by the
 *   parameter's dtype (float16, bfloat16, float32, float64; states in float32, float64 for a
 *   float64 parameter; absent optionals ndim -1 in both lists):
 *     optimizer_sgd      (param, grad, master?) -> (param, master?)
 *     optimizer_momentum (param, grad, velocity, master?) -> (param, velocity, master?)
 *     optimizer_adam     (param, grad, moment1, moment2, moment2_max?, master?, beta1_pow,
 *                         beta2_pow) -> (param, moment1, moment2, moment2_max?, master?,
 *                         beta1_pow, beta2_pow)
 *   with attributes lr, l1, l2, grad_scale (+ mu, use_nesterov, rescale_grad; + beta1, beta2,
 *   epsilon, decoupled_decay); plugins/custom_cpu/optimizer.cc states the arithmetic, which is
 *   oar's host kernels' (oar/kernels/cpu/optimizer.cc);
 * - strides are in elements and may be 0 (broadcast views) or describe any view; data points at
 *   element 0 of the view (the offset is already applied);
 * - the kernel enqueues its work on `stream` and may return before it is done; oar orders work
 *   on one stream and synchronises before any host read;
 * - the dtype a kernel is registered for is that of its first input tensor that is not bool
 *   (`where(condition, x, y)` is keyed by x); bool when every input is bool; the output's for an
 *   op without tensor inputs such as `full`.
 * On failure a function returns OAR_STATUS_ERROR and, where it has one, writes a message into
 * the context's error buffer; oar raises it as a Python RuntimeError naming the op and device. */
#ifndef OAR_DEVICE_EXT_H_
#define OAR_DEVICE_EXT_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define OAR_DEVICE_ABI_VERSION 1

typedef enum OarStatus {
  OAR_STATUS_OK = 0,
  OAR_STATUS_ERROR = 1,
  OAR_STATUS_OUT_OF_MEMORY = 2,
  OAR_STATUS_NOT_READY = 3, /* query_event: recorded work not finished yet */
  OAR_STATUS_UNSUPPORTED = 4, /* a kernel does not handle these dtypes or arguments (a case it
                                 lacks, not a failure): oar raises NotImplementedError */
  OAR_STATUS_INVALID_VALUE = 5, /* a kernel that checks its inputs' values (check_values, a
                                   domain check) refused them: oar raises ValueError with the
                                   kernel's message alone, as the CPU kernel's check does */
} OarStatus;

/* Same numbering as oar::DType. */
typedef enum OarDType {
  OAR_BOOL = 0, OAR_INT8, OAR_UINT8, OAR_INT16, OAR_INT32, OAR_INT64, OAR_FLOAT16, OAR_BFLOAT16,
  OAR_FLOAT32, OAR_FLOAT64, OAR_COMPLEX64, OAR_COMPLEX128,
} OarDType;

typedef struct OarStream_* OarStream; /* opaque, owned by the plug-in */
typedef struct OarEvent_* OarEvent;

typedef struct OarTensor {
  void* data;             /* element 0 of the view, in device memory */
  int32_t dtype;          /* OarDType */
  int32_t ndim;           /* -1: absent optional tensor */
  const int64_t* shape;   /* ndim entries */
  const int64_t* strides; /* ndim entries, in elements */
  int64_t numel;
} OarTensor;

typedef enum OarAttrKind {
  OAR_ATTR_NONE = 0, OAR_ATTR_BOOL, OAR_ATTR_INT, OAR_ATTR_FLOAT, OAR_ATTR_STRING,
  OAR_ATTR_DTYPE, OAR_ATTR_INT_ARRAY, OAR_ATTR_FLOAT_ARRAY,
  OAR_ATTR_SCALAR_BOOL, OAR_ATTR_SCALAR_INT, OAR_ATTR_SCALAR_FLOAT, OAR_ATTR_SCALAR_COMPLEX,
} OarAttrKind;

typedef struct OarAttr {
  const char* name;
  int32_t kind;         /* OarAttrKind */
  int64_t i;            /* BOOL, INT, DTYPE (an OarDType), SCALAR_BOOL, SCALAR_INT */
  double f;             /* FLOAT, SCALAR_FLOAT, and the real part of SCALAR_COMPLEX */
  double f_imag;        /* SCALAR_COMPLEX */
  const char* s;        /* STRING */
  const int64_t* ints;  /* INT_ARRAY */
  const double* floats; /* FLOAT_ARRAY */
  int64_t count;        /* entries in ints or floats */
} OarAttr;

typedef struct OarKernelContext {
  const char* op;
  int32_t device_id;
  OarStream stream; /* the current stream of the device */
  int32_t num_inputs;
  const OarTensor* inputs;
  int32_t num_outputs;
  const OarTensor* outputs;
  int32_t num_attrs;
  const OarAttr* attrs;
  char* error; /* a message on failure, at most error_size bytes with the terminating 0 */
  size_t error_size;
} OarKernelContext;

typedef OarStatus (*OarKernelFn)(const OarKernelContext* ctx);

/* A device type. oar wraps `allocate`/`deallocate` in its caching allocator (statistics,
 * empty_cache), so they may be slow. A NULL stream argument means the device's default stream
 * and a synchronous copy. */
/* What get_device_properties reports about one device. */
typedef struct OarDeviceProperties {
  const char* name;          /* e.g. "NVIDIA H200" */
  size_t total_memory;       /* bytes */
  int major, minor;          /* compute capability; 0, 0 where the notion does not apply */
  int multi_processor_count; /* multiprocessors (or compute units); 0 if unknown */
} OarDeviceProperties;

typedef struct OarDeviceInterface {
  uint32_t abi_version; /* OAR_DEVICE_ABI_VERSION */
  size_t struct_size;   /* sizeof(OarDeviceInterface) */
  const char* device_type; /* "custom_cpu", "gpu", ...: the name in Place(custom_cpu:0) */

  int (*device_count)(void);
  OarStatus (*set_device)(int device);

  OarStatus (*allocate)(int device, size_t nbytes, void** ptr);
  OarStatus (*deallocate)(int device, void* ptr, size_t nbytes);
  /* Page-locked host memory for fast copies (pin_memory); may be NULL (plain malloc is used). */
  OarStatus (*host_allocate)(int device, size_t nbytes, void** ptr);
  OarStatus (*host_deallocate)(int device, void* ptr, size_t nbytes);

  OarStatus (*memcpy_h2d)(int device, OarStream stream, void* dst, const void* src, size_t nbytes);
  OarStatus (*memcpy_d2h)(int device, OarStream stream, void* dst, const void* src, size_t nbytes);
  OarStatus (*memcpy_d2d)(int device, OarStream stream, void* dst, const void* src, size_t nbytes);

  OarStatus (*create_stream)(int device, OarStream* stream);
  OarStatus (*destroy_stream)(int device, OarStream stream);
  OarStatus (*synchronize_stream)(int device, OarStream stream);
  OarStatus (*default_stream)(int device, OarStream* stream);

  OarStatus (*create_event)(int device, OarEvent* event);
  OarStatus (*destroy_event)(int device, OarEvent event);
  OarStatus (*record_event)(int device, OarStream stream, OarEvent event);
  OarStatus (*query_event)(int device, OarEvent event); /* OK when done, NOT_READY otherwise */
  OarStatus (*synchronize_event)(int device, OarEvent event);
  OarStatus (*stream_wait_event)(int device, OarStream stream, OarEvent event);
  /* Milliseconds between two recorded, completed events; may be NULL. */
  OarStatus (*elapsed_time)(int device, OarEvent start, OarEvent end, float* ms);

  OarStatus (*synchronize_device)(int device);
  OarStatus (*memory_info)(int device, size_t* free_bytes, size_t* total_bytes);
  /* A readable name, e.g. "NVIDIA H200"; may be NULL. */
  const char* (*device_name)(int device);
  /* Added after device_name: oar reads it only when struct_size covers it (a plug-in built
     against the earlier header registers without it). May be NULL. */
  OarStatus (*device_properties)(int device, OarDeviceProperties* out);
} OarDeviceInterface;

typedef struct OarRegistrar {
  uint32_t abi_version;
  OarStatus (*register_device)(const OarDeviceInterface* device);
  OarStatus (*register_kernel)(const char* device_type, const char* op, int32_t dtype,
                               OarKernelFn kernel);
} OarRegistrar;

/* Exported by every plug-in. */
typedef OarStatus (*OarPluginInitFn)(const OarRegistrar* registrar);
#define OAR_PLUGIN_INIT_SYMBOL "oar_plugin_init"

/* Helpers for kernels. */
static inline const OarAttr* oar_find_attr(const OarKernelContext* ctx, const char* name) {
  for (int32_t i = 0; i < ctx->num_attrs; ++i) {
    const char* a = ctx->attrs[i].name;
    const char* b = name;
    while (*a && *a == *b) { ++a; ++b; }
    if (*a == *b) return &ctx->attrs[i];
  }
  return (const OarAttr*)0;
}

#ifdef __cplusplus
}
#endif
#endif /* OAR_DEVICE_EXT_H_ */
