// grid_sample (4-D and 5-D) and its gradients, float32 and float64; and affine_grid's base grid.
//
// x: [N, C, H, W], grid: [N, Ho, Wo, 2] holding (x, y) in [-1, 1]; out: [N, C, Ho, Wo]; or
// x: [N, C, D, H, W], grid: [N, Do, Ho, Wo, 3] holding (x, y, z); out: [N, C, Do, Ho, Wo].
// A grid value g along a dim of size S maps to the pixel coordinate
//   align_corners: (g + 1) / 2 * (S - 1)        else: ((g + 1) * S - 1) / 2
// then padding_mode "border" clips it to [0, S - 1], "reflection" reflects it about the borders
// (about 0 and S - 1 with align_corners, else about -0.5 and S - 0.5, then clips); "zeros" keeps
// it and reads 0 outside the input. "bilinear" weighs the four (5-D: eight) neighbours; "nearest" reads the
// nearest (halves to even).
#pragma once
#include <string>
#include <vector>

#include "oar/core/tensor.h"

namespace oar::kernels {

void grid_sample(const Tensor& x, const Tensor& grid, const std::string& mode,
                 const std::string& padding_mode, bool align_corners, const Tensor& out);
// Either of dx (x's shape) and dgrid (grid's shape) may be undefined: then it is not computed.
void grid_sample_grad(const Tensor& x, const Tensor& grid, const Tensor& out_grad,
                      const std::string& mode, const std::string& padding_mode,
                      bool align_corners, const Tensor& dx, const Tensor& dgrid);
// {dx, dgrid}, both computed.
std::vector<Tensor> grid_sample_grad(const Tensor& x, const Tensor& grid, const Tensor& out_grad,
                                     const std::string& mode, const std::string& padding_mode,
                                     bool align_corners);
// base: [H, W, 3] rows (x, y, 1) (D == 0) or [D, H, W, 4] rows (x, y, z, 1), the coordinates
// evenly spaced over [-1, 1] (align_corners) or the pixel centres ((2 i + 1) / S - 1).
void affine_grid_base(int64_t D, int64_t H, int64_t W, bool align_corners, const Tensor& base);

}  // namespace oar::kernels
