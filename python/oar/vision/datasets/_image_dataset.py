"""What the image datasets (MNIST, FashionMNIST, Cifar10/100, Digits) share: how an item
(image, label) is made from the stored uint8 image, as Paddle's image datasets make it."""
import numpy as np

from ...io import Dataset


def default_dtype_name():
    """The default dtype's name ('float32'), read when a dataset is built: the dtype its 'cv2'
    backend images are returned in."""
    from ...framework.dtype import get_default_dtype
    return str(get_default_dtype()).replace("paddle.", "")


class ImageDataset(Dataset):
    """A dataset of stored uint8 images (HW or HWC) and labels.

    A subclass sets self.images, self.labels, self.backend ('pil' or 'cv2'), self.transform and
    self.dtype, and says with _stored_item(idx) -> (uint8 image, label) what item idx is. The
    'pil' backend gives a PIL image, after `transform`; 'cv2' gives the array, first cast to
    CV2_INPUT_DTYPE when the class sets one, then through `transform`, then cast to self.dtype."""

    CV2_INPUT_DTYPE = None

    def _stored_item(self, idx):
        raise NotImplementedError(f"{type(self).__name__}._stored_item is not implemented")

    def __getitem__(self, idx):
        image, label = self._stored_item(idx)
        if self.backend == "pil":
            from PIL import Image
            image = Image.fromarray(np.ascontiguousarray(image))
        elif self.CV2_INPUT_DTYPE is not None:
            image = image.astype(self.CV2_INPUT_DTYPE)
        if self.transform is not None:
            image = self.transform(image)
        if self.backend == "pil":
            return image, label
        return image.astype(self.dtype), label

    def __len__(self):
        return len(self.labels)
