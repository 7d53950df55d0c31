// cuDNN as an optional runtime dependency of the plug-in (cudnn_loader.cc): libcudnn.so.9 is
// dlopen'ed at first use and the few legacy-API functions convolution needs are resolved into a
// table. The plug-in never links -lcudnn; cuDNN's headers are used for types and enums only (and
// when they are absent at build time the loader always reports "not available").
//
// Contract: cudnn_api() is the table, or nullptr when cuDNN is unusable (no library, a missing
// symbol, a major version other than 9, or OAR_CUDA_DISABLE_CUDNN=1, which is read on every call
// so a test can toggle it). Loading happens once, thread-safely; the reason it failed goes to
// stderr once when OAR_CUDA_VERBOSE is set. The library stays loaded until exit.
#pragma once

#if __has_include(<cudnn.h>)
#include <cudnn.h>
#define OAR_CUDA_HAVE_CUDNN_HEADERS 1
#else
#define OAR_CUDA_HAVE_CUDNN_HEADERS 0
#endif

namespace oar_cuda {

#if OAR_CUDA_HAVE_CUDNN_HEADERS
struct CudnnApi {
#define OAR_CUDNN_FN(name) decltype(&::name) name = nullptr;
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
  long version = 0;  // cudnnGetVersion() of the loaded library
};
#else
struct CudnnApi;
#endif

const CudnnApi* cudnn_api();

// OAR_CUDA_VERBOSE is set (read once): cuDNN fallbacks are then reported on stderr.
bool cudnn_verbose();

}  // namespace oar_cuda
