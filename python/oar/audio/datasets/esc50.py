"""ESC-50 (paddle.audio.datasets.ESC50): 2000 five-second environmental recordings in 50
classes, in five folds, read from the extracted ESC-50-master.zip in Paddle's cache directory."""
from __future__ import annotations

import csv
import os
from typing import NamedTuple

from ...framework.dataset_files import data_home, missing_file_error
from .dataset import AudioClassificationDataset

_ARCHIVE = {"url": "https://paddleaudio.bj.bcebos.com/datasets/ESC-50-master.zip",
            "md5": "7771e4b9d86d0945acce719c7a59305a"}


class ESC50(AudioClassificationDataset):
    """The ESC-50 environmental sound classification dataset: items are (feature, label), label
    the class index (0-49, the csv's target).

    oar does not download: ESC-50-master.zip (from archive['url']) must be extracted into
    Paddle's cache directory, ~/.cache/paddle/dataset, giving ESC-50-master/meta/esc50.csv and
    ESC-50-master/audio/*.wav; otherwise the constructor raises FileNotFoundError naming them.

    Args:
        mode (str, optional): 'train' (the four folds other than split) or 'dev' (fold split).
            Default: 'train'.
        split (int, optional): The dev fold, 1 to 5. Default: 1.
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
        >>> root = os.path.join(home.name, '.cache', 'paddle', 'dataset', 'ESC-50-master')
        >>> os.makedirs(os.path.join(root, 'meta'))
        >>> os.makedirs(os.path.join(root, 'audio'))
        >>> with open(os.path.join(root, 'meta', 'esc50.csv'), 'w') as f:
        ...     _ = f.write('filename,fold,target,category,esc10,src_file,take\\n'
        ...                 '1-100-A-0.wav,1,0,dog,True,100,A\\n'
        ...                 '2-200-A-14.wav,2,14,chirping_birds,False,200,A\\n')
        >>> for name in ('1-100-A-0.wav', '2-200-A-14.wav'):
        ...     oar.audio.save(os.path.join(root, 'audio', name), oar.zeros([1, 4000]), 16000)
        >>> dev = oar.audio.datasets.ESC50(mode='dev', split=1, feat_type='mfcc', n_mfcc=13)
        >>> feat, label = dev[0]
        >>> print(len(dev), feat.shape, label)
        1 [13, 32] 0
        >>> train = oar.audio.datasets.ESC50(mode='train', split=1)
        >>> print(len(train), train[0][0].shape, train[0][1])
        1 [4000] 14
        >>> os.environ['HOME'] = saved_home
        >>> home.cleanup()
    """

    archive = _ARCHIVE
    label_list = [
        # animals
        "Dog", "Rooster", "Pig", "Cow", "Frog", "Cat", "Hen", "Insects (flying)", "Sheep", "Crow",
        # natural soundscapes and water sounds
        "Rain", "Sea waves", "Crackling fire", "Crickets", "Chirping birds", "Water drops", "Wind",
        "Pouring water", "Toilet flush", "Thunderstorm",
        # human, non-speech sounds
        "Crying baby", "Sneezing", "Clapping", "Breathing", "Coughing", "Footsteps", "Laughing",
        "Brushing teeth", "Snoring", "Drinking, sipping",
        # interior/domestic sounds
        "Door knock", "Mouse click", "Keyboard typing", "Door, wood creaks", "Can opening",
        "Washing machine", "Vacuum cleaner", "Clock alarm", "Clock tick", "Glass breaking",
        # exterior/urban noises
        "Helicopter", "Chainsaw", "Siren", "Car horn", "Engine", "Train", "Church bells", "Airplane",
        "Fireworks", "Hand saw",
    ]
    meta = os.path.join("ESC-50-master", "meta", "esc50.csv")
    audio_path = os.path.join("ESC-50-master", "audio")

    class meta_info(NamedTuple):
        filename: str
        fold: str
        target: str
        category: str
        esc10: str
        src_file: str
        take: str

    def __init__(self, mode="train", split=1, feat_type="raw", archive=None, **kwargs):
        if split not in range(1, 6):
            raise AssertionError(f"The selected split should be integer, and 1 <= split <= 5, but got {split}")
        if archive is not None:
            self.archive = archive
        files, labels = self._get_data(mode, split)
        super().__init__(files=files, labels=labels, feat_type=feat_type, **kwargs)

    def _check_files(self):
        meta, audio = os.path.join(data_home(), self.meta), os.path.join(data_home(), self.audio_path)
        if not os.path.isfile(meta) or not os.path.isdir(audio):
            raise missing_file_error("ESC50", meta if not os.path.isfile(meta) else audio,
                                     f"the extracted archive (ESC-50-master/ with meta/esc50.csv and "
                                     f"audio/) in {data_home()!r}, so that this path exists,",
                                     self.archive["url"])
        return meta, audio

    def _get_meta_info(self):
        meta, _ = self._check_files()
        with open(meta, newline="") as f:
            rows = list(csv.reader(f))[1:]  # the first row is the header
        return [self.meta_info(*row) for row in rows if row]

    def _get_data(self, mode, split):
        _, audio = self._check_files()
        files, labels = [], []
        for sample in self._get_meta_info():
            in_dev_fold = int(sample.fold) == split
            if in_dev_fold == (mode != "train"):
                files.append(os.path.join(audio, sample.filename))
                labels.append(int(sample.target))
        return files, labels
