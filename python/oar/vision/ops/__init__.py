"""oar.vision.ops, as paddle.vision.ops: detection and RoI operators."""
from .deform import DeformConv2D, deform_conv2d  # noqa: F401
from .detection import box_coder, prior_box, yolo_box  # noqa: F401
from .image_io import decode_jpeg, read_file  # noqa: F401
from .nms import matrix_nms, nms  # noqa: F401
from .proposals import distribute_fpn_proposals, generate_proposals  # noqa: F401
from .roi import PSRoIPool, RoIAlign, RoIPool, psroi_pool, roi_align, roi_pool  # noqa: F401
from .yolo import yolo_loss  # noqa: F401

__all__ = ["yolo_loss", "yolo_box", "prior_box", "box_coder", "deform_conv2d", "DeformConv2D",
           "distribute_fpn_proposals", "generate_proposals", "read_file", "decode_jpeg",
           "roi_pool", "RoIPool", "psroi_pool", "PSRoIPool", "roi_align", "RoIAlign", "nms",
           "matrix_nms"]
