"""TESS (paddle.audio.datasets.TESS): the Toronto emotional speech set, 2800 recordings of
200 words spoken by two actresses in seven emotions, read from the extracted
TESS_Toronto_emotional_speech_set.zip in Paddle's cache directory."""
from __future__ import annotations

import os
from typing import NamedTuple

from ...framework.dataset_files import data_home, missing_file_error
from .dataset import AudioClassificationDataset

_ARCHIVE = {"url": "https://bj.bcebos.com/paddleaudio/datasets/TESS_Toronto_emotional_speech_set.zip",
            "md5": "1465311b24d1de704c4c63e4ccc470c7"}


class TESS(AudioClassificationDataset):
    """The TESS emotional speech dataset: items are (feature, label), label the index of the
    emotion in label_list, parsed from the file name <speaker>_<word>_<emotion>.wav.

    oar does not download: the archive (archive['url']) must be extracted into Paddle's cache
    directory, ~/.cache/paddle/dataset, giving TESS_Toronto_emotional_speech_set/ with the .wav
    files (in subdirectories or not); otherwise the constructor raises FileNotFoundError. The
    files are taken in sorted path order and dealt into n_folds folds in turn.

    Args:
        mode (str, optional): 'train' (the folds other than split) or 'dev' (fold split).
            Default: 'train'.
        n_folds (int, optional): The number of folds, at least 1. Default: 5.
        split (int, optional): The dev fold, 1 to n_folds. Default: 1.
        feat_type (str, optional): 'raw', 'spectrogram', 'melspectrogram', 'logmelspectrogram' or
            'mfcc'. Default: 'raw'.
        archive (dict, optional): {'url': ..., 'md5': ...} of the archive (only named in the error
            when the files are missing). Default: None (Paddle's).
        **kwargs: The feature layer's arguments (e.g. n_mfcc).

    Examples:
        >>> import os, tempfile
        >>> import oar
        >>> home, saved_home = tempfile.TemporaryDirectory(), os.environ['HOME']
        >>> os.environ['HOME'] = home.name  # a stand-in for ~/.cache/paddle/dataset
        >>> root = os.path.join(home.name, '.cache', 'paddle', 'dataset', 'TESS_Toronto_emotional_speech_set')
        >>> os.makedirs(root)
        >>> for name in ('OAF_back_angry.wav', 'OAF_back_happy.wav', 'YAF_dog_sad.wav'):
        ...     oar.audio.save(os.path.join(root, name), oar.zeros([1, 2000]), 16000)
        >>> dev = oar.audio.datasets.TESS(mode='dev', n_folds=3, split=2, feat_type='melspectrogram',
        ...                              n_fft=512, n_mels=32)
        >>> feat, label = dev[0]
        >>> print(len(dev), feat.shape, dev.label_list[label])
        1 [32, 4] happy
        >>> os.environ['HOME'] = saved_home
        >>> home.cleanup()
    """

    archive = _ARCHIVE
    label_list = ["angry", "disgust", "fear", "happy", "neutral", "ps", "sad"]  # ps: pleasant surprise
    audio_path = "TESS_Toronto_emotional_speech_set"

    class meta_info(NamedTuple):
        speaker: str
        word: str
        emotion: str

    def __init__(self, mode="train", n_folds=5, split=1, feat_type="raw", archive=None, **kwargs):
        if not isinstance(n_folds, int) or n_folds < 1:
            raise AssertionError(f"the n_folds should be integer and n_folds >= 1, but got {n_folds}")
        if split not in range(1, n_folds + 1):
            raise AssertionError(f"The selected split should be integer and should be 1 <= split <= "
                                 f"{n_folds}, but got {split}")
        if archive is not None:
            self.archive = archive
        files, labels = self._get_data(mode, n_folds, split)
        super().__init__(files=files, labels=labels, feat_type=feat_type, **kwargs)

    def _get_meta_info(self, files):
        infos = []
        for path in files:
            parts = os.path.basename(path)[:-4].split("_")
            if len(parts) != 3:
                raise ValueError(f"TESS: {path!r} is not named <speaker>_<word>_<emotion>.wav")
            infos.append(self.meta_info(*parts))
        return infos

    def _get_data(self, mode, n_folds, split):
        root = os.path.join(data_home(), self.audio_path)
        if not os.path.isdir(root):
            raise missing_file_error("TESS", root, "the extracted archive (the directory "
                                     "TESS_Toronto_emotional_speech_set/ of .wav files)", self.archive["url"])
        # sorted: os.walk's order is the file system's, which would make the folds differ by machine
        wav_files = sorted(os.path.join(d, f) for d, _, names in os.walk(root)
                           for f in names if f.endswith(".wav"))
        files, labels = [], []
        for idx, sample in enumerate(self._get_meta_info(wav_files)):
            if sample.emotion not in self.label_list:
                raise ValueError(f"TESS: unknown emotion {sample.emotion!r} in {wav_files[idx]!r}; "
                                 f"expected one of {self.label_list}")
            fold = idx % n_folds + 1
            if (fold == split) == (mode != "train"):
                files.append(wav_files[idx])
                labels.append(self.label_list.index(sample.emotion))
        return files, labels
