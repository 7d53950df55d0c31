"""The main job: train LeNet on the bundled handwritten digits with Model.fit, evaluate it on the
held-out split, save the checkpoint, reload it into a fresh model, check that evaluation gives the
same accuracy, and plot the training curves. Then export the network for deployment (oar.jit.save),
check that the inference predictor gives the eager network's predictions, and write sample images
for the C++ predictor example (examples/infer_lenet.cc).

    .venv/bin/python examples/train_lenet.py [--epochs N] [--out DIR]
"""
import argparse
import os
import sys

import numpy as np

import oar
from oar.vision import transforms as T
from oar.vision.datasets import Digits
from oar.vision.models import LeNet

REQUIRED_ACCURACY = 0.97


def build_model():
    model = oar.Model(LeNet(num_classes=10))
    optimizer = oar.optimizer.Adam(learning_rate=2e-3, parameters=model.parameters())
    model.prepare(optimizer, oar.nn.CrossEntropyLoss(), oar.metric.Accuracy())
    return model


def export_and_check(net, test_set, out_dir, samples=200):
    """jit.save the network, run the held-out images through the predictor, compare with eager."""
    net.eval()
    prefix = os.path.join(out_dir, "inference")
    oar.jit.save(net, prefix, input_spec=[oar.static.InputSpec([None, 1, 28, 28], "float32", "image")])
    print(f"exported {prefix}.json and {prefix}.pdiparams (Paddle 3's format: real Paddle loads them too)")
    images = np.stack([np.asarray(test_set[i][0], dtype="float32") for i in range(len(test_set))])
    labels = np.array([int(np.asarray(test_set[i][1]).reshape(-1)[0]) for i in range(len(test_set))])
    predictor = oar.inference.create_predictor(oar.inference.Config(prefix + ".json", prefix + ".pdiparams"))
    handle = predictor.get_input_handle(predictor.get_input_names()[0])
    handle.copy_from_cpu(images)
    predictor.run()
    served = predictor.get_output_handle(predictor.get_output_names()[0]).copy_to_cpu()
    with oar.no_grad():
        eager = net(oar.to_tensor(images)).numpy()
    same = bool((served.argmax(1) == eager.argmax(1)).all())
    print(f"predictor vs eager on {len(images)} held-out images: max |difference| "
          f"{np.abs(served - eager).max():.2e}, same predictions: {same}, "
          f"accuracy {(served.argmax(1) == labels).mean():.4f}")
    # 28x28 8-bit images for the C++ example (pixel = (x * 0.5 + 0.5) * 255, the inverse of the transform).
    sample_dir = os.path.join(out_dir, "samples")
    os.makedirs(sample_dir, exist_ok=True)
    for i in range(min(samples, len(images))):
        pixels = np.clip(np.rint((images[i, 0] * 0.5 + 0.5) * 255), 0, 255).astype(np.uint8)
        with open(os.path.join(sample_dir, f"digit_{labels[i]}_{i:04d}.pgm"), "wb") as f:
            f.write(b"P5\n28 28\n255\n" + pixels.tobytes())
    if not same:
        print("FAILED: the predictor's predictions differ from the eager network's", file=sys.stderr)
        return 1
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--out", default="out/lenet")
    parser.add_argument("--workers", type=int, default=0)
    args = parser.parse_args()

    oar.seed(2024)
    # 8x8 digits upscaled to LeNet's 28x28 input, scaled to [-1, 1].
    transform = T.Compose([T.Resize((28, 28)), T.ToTensor(), T.Normalize(mean=[0.5], std=[0.5])])
    train_set = Digits(mode="train", transform=transform)
    test_set = Digits(mode="test", transform=transform)
    print(f"Digits: {len(train_set)} training and {len(test_set)} held-out images")

    model = build_model()
    model.summary((1, 1, 28, 28))
    log_dir = os.path.join(args.out, "logs")
    model.fit(train_set, epochs=args.epochs, batch_size=64, verbose=1, log_freq=5, num_workers=args.workers,
              callbacks=[oar.callbacks.VisualDL(log_dir)])
    result = model.evaluate(test_set, batch_size=256, verbose=0)
    accuracy = float(result["acc"])
    print(f"held-out accuracy: {accuracy:.4f}")

    checkpoint = os.path.join(args.out, "lenet")
    model.save(checkpoint)
    print(f"saved {checkpoint}.pdparams and {checkpoint}.pdopt")
    reloaded = build_model()
    reloaded.load(checkpoint)
    accuracy_again = float(reloaded.evaluate(test_set, batch_size=256, verbose=0)["acc"])
    print(f"held-out accuracy after reloading the checkpoint: {accuracy_again:.4f}")

    if export_and_check(model.network, test_set, args.out) != 0:
        return 1

    from oar.utils import plot_scalars
    plot_scalars.main([log_dir, "-o", os.path.join(args.out, "training_curves.html")])

    if accuracy_again != accuracy:
        print("FAILED: the reloaded model evaluates differently", file=sys.stderr)
        return 1
    if accuracy < REQUIRED_ACCURACY:
        print(f"FAILED: accuracy {accuracy:.4f} is below {REQUIRED_ACCURACY}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
