"""LeNet-5 for 1x28x28 images (MNIST), as paddle.vision.models.LeNet."""
from ... import _C, nn


class LeNet(nn.Layer):
    """Two conv/ReLU/max-pool stages, then three Linear layers (the last omitted when num_classes <= 0)."""

    def __init__(self, num_classes=10):
        super().__init__()
        self.num_classes = num_classes
        self.features = nn.Sequential(
            nn.Conv2D(1, 6, 3, stride=1, padding=1),
            nn.ReLU(),
            nn.MaxPool2D(2, 2),
            nn.Conv2D(6, 16, 5, stride=1, padding=0),
            nn.ReLU(),
            nn.MaxPool2D(2, 2),
        )
        if num_classes > 0:
            # Paddle's LeNet has no activation between its Linear layers; kept so for equal outputs.
            self.fc = nn.Sequential(nn.Linear(400, 120), nn.Linear(120, 84), nn.Linear(84, num_classes))

    def forward(self, inputs):
        x = self.features(inputs)
        if self.num_classes > 0:
            x = self.fc(_C.flatten(x, 1, -1))
        return x
