// oar._C._optim_*: the fused optimizer updates (oar/kernels/cpu/optimizer.h) for oar.optimizer.
// Written by hand rather than as an op spec: each call takes lists of tensors (parameters,
// gradients, one list per state), writes them all in place and has no backward, none of which
// the spec generator's one-op-one-output-with-autograd model fits.
#include "bind_common.h"
#include "oar/kernels/cpu/optimizer.h"

namespace oar::python {

namespace {
using TensorList = std::vector<Tensor>;
using MaybeTensorList = std::vector<std::optional<Tensor>>;

kernels::OptimizerBatch batch_of(TensorList params, TensorList grads, std::vector<TensorList> states,
                                 const MaybeTensorList& masters, std::vector<double> lrs,
                                 std::vector<double> l1, std::vector<double> l2,
                                 std::vector<double> grad_scale, double rescale) {
  kernels::OptimizerBatch b;
  b.params = std::move(params);
  b.grads = std::move(grads);
  b.states = std::move(states);
  for (const auto& m : masters) b.masters.push_back(m ? *m : Tensor());
  b.lrs = std::move(lrs);
  b.l1 = std::move(l1);
  b.l2 = std::move(l2);
  b.grad_scale = std::move(grad_scale);
  b.rescale = rescale;
  return b;
}

// The arguments every update shares, in this order.
#define OAR_BATCH_ARGS                                                                     \
  TensorList params, TensorList grads, std::vector<TensorList> states,                     \
      MaybeTensorList masters, std::vector<double> lrs, std::vector<double> l1,            \
      std::vector<double> l2, std::vector<double> grad_scale
#define OAR_BATCH(RESCALE)                                                                 \
  batch_of(std::move(params), std::move(grads), std::move(states), masters, std::move(lrs), \
           std::move(l1), std::move(l2), std::move(grad_scale), RESCALE)
#define OAR_BATCH_NAMES                                                                    \
  nb::arg("params"), nb::arg("grads"), nb::arg("states"), nb::arg("masters"),              \
      nb::arg("lrs"), nb::arg("l1"), nb::arg("l2"), nb::arg("grad_scale")
}  // namespace

void bind_optimizer(nb::module_& m) {
  using G = nb::call_guard<nb::gil_scoped_release>;
  m.def("_optim_squared_norms", &kernels::squared_l2_norms, nb::arg("tensors"), G());
  m.def("_optim_sgd", [](OAR_BATCH_ARGS) { kernels::sgd_update(OAR_BATCH(1.0)); },
        OAR_BATCH_NAMES, G());
  m.def("_optim_momentum",
        [](OAR_BATCH_ARGS, double mu, bool use_nesterov, double rescale_grad) {
          kernels::momentum_update(OAR_BATCH(rescale_grad), mu, use_nesterov);
        },
        OAR_BATCH_NAMES, nb::arg("mu"), nb::arg("use_nesterov"), nb::arg("rescale_grad"), G());
  m.def("_optim_adam",
        [](OAR_BATCH_ARGS, TensorList beta1_pow, TensorList beta2_pow, double beta1,
           double beta2, double epsilon, bool amsgrad, std::vector<double> decay) {
          kernels::adam_update(OAR_BATCH(1.0), {std::move(beta1_pow), std::move(beta2_pow)}, beta1,
                               beta2, epsilon, amsgrad, decay);
        },
        OAR_BATCH_NAMES, nb::arg("beta1_pow"), nb::arg("beta2_pow"), nb::arg("beta1"),
        nb::arg("beta2"), nb::arg("epsilon"), nb::arg("amsgrad"), nb::arg("decay"), G());
  m.def("_optim_adagrad",
        [](OAR_BATCH_ARGS, double epsilon) { kernels::adagrad_update(OAR_BATCH(1.0), epsilon); },
        OAR_BATCH_NAMES, nb::arg("epsilon"), G());
  m.def("_optim_rmsprop",
        [](OAR_BATCH_ARGS, double rho, double epsilon, double momentum, bool centered) {
          kernels::rmsprop_update(OAR_BATCH(1.0), rho, epsilon, momentum, centered);
        },
        OAR_BATCH_NAMES, nb::arg("rho"), nb::arg("epsilon"), nb::arg("momentum"),
        nb::arg("centered"), G());
  m.def("_optim_adadelta",
        [](OAR_BATCH_ARGS, double rho, double epsilon) {
          kernels::adadelta_update(OAR_BATCH(1.0), rho, epsilon);
        },
        OAR_BATCH_NAMES, nb::arg("rho"), nb::arg("epsilon"), G());
  m.def("_optim_adamax",
        [](OAR_BATCH_ARGS, TensorList beta1_pow, double beta1, double beta2, double epsilon) {
          kernels::adamax_update(OAR_BATCH(1.0), {std::move(beta1_pow), {}}, beta1, beta2, epsilon);
        },
        OAR_BATCH_NAMES, nb::arg("beta1_pow"), nb::arg("beta1"), nb::arg("beta2"),
        nb::arg("epsilon"), G());
  m.def("_optim_nadam",
        [](OAR_BATCH_ARGS, double beta1, double beta2, double epsilon, double momentum_decay) {
          kernels::nadam_update(OAR_BATCH(1.0), beta1, beta2, epsilon, momentum_decay);
        },
        OAR_BATCH_NAMES, nb::arg("beta1"), nb::arg("beta2"), nb::arg("epsilon"),
        nb::arg("momentum_decay"), G());
  m.def("_optim_radam",
        [](OAR_BATCH_ARGS, double beta1, double beta2, double epsilon) {
          kernels::radam_update(OAR_BATCH(1.0), beta1, beta2, epsilon);
        },
        OAR_BATCH_NAMES, nb::arg("beta1"), nb::arg("beta2"), nb::arg("epsilon"), G());
  m.def("_optim_asgd",
        [](OAR_BATCH_ARGS, std::vector<double> count) {
          kernels::asgd_update(OAR_BATCH(1.0), count);
        },
        OAR_BATCH_NAMES, nb::arg("count"), G());
  m.def("_optim_rprop",
        [](OAR_BATCH_ARGS, double lr_min, double lr_max, double eta_negative, double eta_positive) {
          kernels::rprop_update(OAR_BATCH(1.0), lr_min, lr_max, eta_negative, eta_positive);
        },
        OAR_BATCH_NAMES, nb::arg("lr_min"), nb::arg("lr_max"), nb::arg("eta_negative"),
        nb::arg("eta_positive"), G());
  m.def("_optim_lamb",
        [](OAR_BATCH_ARGS, TensorList beta1_pow, TensorList beta2_pow, double beta1,
           double beta2, double epsilon, std::vector<double> decay, bool always_adapt) {
          kernels::lamb_update(OAR_BATCH(1.0), {std::move(beta1_pow), std::move(beta2_pow)}, beta1,
                               beta2, epsilon, decay, always_adapt);
        },
        OAR_BATCH_NAMES, nb::arg("beta1_pow"), nb::arg("beta2_pow"), nb::arg("beta1"),
        nb::arg("beta2"), nb::arg("epsilon"), nb::arg("decay"), nb::arg("always_adapt"), G());
}

}  // namespace oar::python
