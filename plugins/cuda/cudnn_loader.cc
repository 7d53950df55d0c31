// Finds and loads cuDNN 9 at run time (see cudnn_loader.h).
//
// Search order for the library:
//  1. $OAR_CUDNN_PATH: a path to libcudnn.so.9 itself, or a folder holding it;
//  2. "libcudnn.so.9" through the dynamic loader's usual search (LD_LIBRARY_PATH, ld.so.cache,
//     the plug-in's runpath);
//  3. as a last resort, the copy inside PyTorch's wheel on oar's GPU test machine
//     (/opt/torch/.venv/.../nvidia/cudnn/lib), where cuDNN exists only there. Harmless elsewhere:
//     the path simply does not exist.
// cuDNN 9's libcudnn.so.9 is a thin front that loads its sub-libraries (libcudnn_cnn.so.9, ...)
// from its own folder ($ORIGIN runpath), so loading it by full path is enough.
#include "plugins/cuda/cudnn_loader.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

namespace oar_cuda {

bool cudnn_verbose() {
  static const bool on = std::getenv("OAR_CUDA_VERBOSE") != nullptr;
  return on;
}

#if OAR_CUDA_HAVE_CUDNN_HEADERS
namespace {

constexpr const char kLibName[] = "libcudnn.so.9";
constexpr const char kTorchWheelLib[] =
    "/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cudnn/lib/libcudnn.so.9";

void* open_library(std::string* tried) {
  const int flags = RTLD_NOW | RTLD_LOCAL;
  auto attempt = [&](const std::string& path) -> void* {
    void* h = dlopen(path.c_str(), flags);
    if (!h) {
      const char* e = dlerror();
      *tried += "\n  " + path + ": " + (e ? e : "not found");
    }
    return h;
  };
  if (const char* env = std::getenv("OAR_CUDNN_PATH"); env && *env) {
    std::string p = env;
    const size_t n = std::strlen(kLibName);
    if (p.size() < n || p.compare(p.size() - n, n, kLibName) != 0) {
      // Not naming the library itself: a folder.
      if (p.back() != '/') p += '/';
      p += kLibName;
    }
    if (void* h = attempt(p)) return h;
  }
  if (void* h = attempt(kLibName)) return h;
  return attempt(kTorchWheelLib);
}

// The loaded table, or nullptr with the reason in *why.
const CudnnApi* load(std::string* why) {
  std::string tried;
  void* lib = open_library(&tried);
  if (!lib) {
    *why = "libcudnn.so.9 not found; tried:" + tried;
    return nullptr;
  }
  static CudnnApi api;  // filled once, under load()'s call_once
  bool ok = true;
#define OAR_CUDNN_FN(name)                                                      \
  api.name = reinterpret_cast<decltype(api.name)>(dlsym(lib, #name));           \
  if (!api.name) {                                                              \
    ok = false;                                                                 \
    *why += std::string(why->empty() ? "missing symbols:" : "") + " " + #name;  \
  }
  OAR_CUDNN_FN(cudnnGetVersion)
  OAR_CUDNN_FN(cudnnGetErrorString)
  OAR_CUDNN_FN(cudnnCreate)
  OAR_CUDNN_FN(cudnnSetStream)
  OAR_CUDNN_FN(cudnnCreateTensorDescriptor)
  OAR_CUDNN_FN(cudnnSetTensorNdDescriptor)
  OAR_CUDNN_FN(cudnnDestroyTensorDescriptor)
  OAR_CUDNN_FN(cudnnCreateFilterDescriptor)
  OAR_CUDNN_FN(cudnnSetFilterNdDescriptor)
  OAR_CUDNN_FN(cudnnDestroyFilterDescriptor)
  OAR_CUDNN_FN(cudnnCreateConvolutionDescriptor)
  OAR_CUDNN_FN(cudnnSetConvolutionNdDescriptor)
  OAR_CUDNN_FN(cudnnSetConvolutionGroupCount)
  OAR_CUDNN_FN(cudnnSetConvolutionMathType)
  OAR_CUDNN_FN(cudnnDestroyConvolutionDescriptor)
  OAR_CUDNN_FN(cudnnGetConvolutionForwardAlgorithm_v7)
  OAR_CUDNN_FN(cudnnFindConvolutionForwardAlgorithm)
  OAR_CUDNN_FN(cudnnGetConvolutionForwardWorkspaceSize)
  OAR_CUDNN_FN(cudnnConvolutionForward)
  OAR_CUDNN_FN(cudnnGetConvolutionBackwardDataAlgorithm_v7)
  OAR_CUDNN_FN(cudnnFindConvolutionBackwardDataAlgorithm)
  OAR_CUDNN_FN(cudnnGetConvolutionBackwardDataWorkspaceSize)
  OAR_CUDNN_FN(cudnnConvolutionBackwardData)
  OAR_CUDNN_FN(cudnnGetConvolutionBackwardFilterAlgorithm_v7)
  OAR_CUDNN_FN(cudnnFindConvolutionBackwardFilterAlgorithm)
  OAR_CUDNN_FN(cudnnGetConvolutionBackwardFilterWorkspaceSize)
  OAR_CUDNN_FN(cudnnConvolutionBackwardFilter)
#undef OAR_CUDNN_FN
  if (!ok) {
    dlclose(lib);
    return nullptr;
  }
  api.version = static_cast<long>(api.cudnnGetVersion());
  // The legacy API's structs and enums used here are those of the cuDNN 9 headers.
  if (api.version / 10000 != 9) {
    *why = "libcudnn.so.9 reports version " + std::to_string(api.version) + ", need 9.x";
    dlclose(lib);
    return nullptr;
  }
  return &api;
}

}  // namespace

const CudnnApi* cudnn_api() {
  if (const char* off = std::getenv("OAR_CUDA_DISABLE_CUDNN"); off && off[0] == '1')
    return nullptr;
  static std::once_flag once;
  static const CudnnApi* api = nullptr;
  std::call_once(once, [] {
    std::string why;
    api = load(&why);
    if (cudnn_verbose()) {
      if (api)
        std::fprintf(stderr, "oar_cuda: cuDNN %ld loaded; convolutions use it\n", api->version);
      else
        std::fprintf(stderr, "oar_cuda: cuDNN unavailable (%s); convolutions use im2col + GEMM\n",
                     why.c_str());
    }
  });
  return api;
}

#else  // no cuDNN headers at build time

const CudnnApi* cudnn_api() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (cudnn_verbose())
      std::fprintf(stderr, "oar_cuda: built without cuDNN headers; convolutions use im2col\n");
  });
  return nullptr;
}

#endif

}  // namespace oar_cuda
