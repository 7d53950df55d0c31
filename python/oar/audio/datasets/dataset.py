"""The base of the audio classification datasets (paddle.audio.datasets.dataset): items are
(feature, label), the feature being the waveform or one of oar.audio.features of it."""
from __future__ import annotations

from ...io.dataset import Dataset
from ..backends.wave_backend import load
from ..features.layers import MFCC, LogMelSpectrogram, MelSpectrogram, Spectrogram

FEATURES = {"raw": None, "melspectrogram": MelSpectrogram, "mfcc": MFCC,
            "logmelspectrogram": LogMelSpectrogram, "spectrogram": Spectrogram}


class AudioClassificationDataset(Dataset):
    """Audio files with integer labels; each item is (feature, label).

    Args:
        files (list[str]): The audio files' paths.
        labels (list[int]): Their labels.
        feat_type (str, optional): 'raw' (the waveform: [T] for mono files, else [C, T]),
            'spectrogram', 'melspectrogram', 'logmelspectrogram' or 'mfcc' ([feature_dim,
            num_frames], with a leading C for multichannel files). Default: 'raw'.
        sample_rate (int, optional): Updated to each file's rate as it is read. Default: None.
        **kwargs: The feature layer's arguments (its sr is the file's sample rate).
    """

    def __init__(self, files, labels, feat_type="raw", sample_rate=None, **kwargs):
        super().__init__()
        if feat_type not in FEATURES:
            raise RuntimeError(f"Unknown feat_type: {feat_type}, it must be one in {list(FEATURES)}")
        self.files, self.labels = files, labels
        self.feat_type, self.sample_rate = feat_type, sample_rate
        self.feat_config = kwargs
        self._extractors = {}  # by sample rate: the filter banks are built once, not per item

    def _extractor(self, sample_rate):
        if sample_rate not in self._extractors:
            layer = FEATURES[self.feat_type]
            config = dict(self.feat_config)
            if self.feat_type != "spectrogram":
                config["sr"] = sample_rate
            self._extractors[sample_rate] = layer(**config)
        return self._extractors[sample_rate]

    def _convert_to_record(self, idx):
        waveform, self.sample_rate = load(self.files[idx])
        if waveform.shape[0] == 1:
            waveform = waveform.squeeze(0)  # mono: [T]
        if FEATURES[self.feat_type] is not None:
            # the layers take a batch: mono is a batch of 1, the channels of a multichannel file a batch
            extract = self._extractor(self.sample_rate)
            waveform = extract(waveform.unsqueeze(0)).squeeze(0) if waveform.ndim == 1 else extract(waveform)
        return {"feat": waveform, "label": self.labels[idx]}

    def __getitem__(self, idx):
        record = self._convert_to_record(idx)
        return record["feat"], record["label"]

    def __len__(self):
        return len(self.files)
