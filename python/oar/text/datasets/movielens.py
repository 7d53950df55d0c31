"""Movielens (paddle.text.datasets.Movielens): the MovieLens 1M ratings with user and movie
features, from ml-1m.zip (ml-1m/movies.dat, users.dat, ratings.dat; '::'-separated, latin-1)."""
from __future__ import annotations

import re

import numpy as np

from ...framework.dataset_files import resolve
from ...io.dataset import Dataset
from ._archives import open_zip

URL = "https://dataset.bj.bcebos.com/movielens%2Fml-1m.zip"
MD5 = "c4d9eecfca2ab87c1945afe126590906"
age_table = [1, 18, 25, 35, 45, 50, 56]  # users.dat's age codes; a user's age is an index in it
_TITLE = re.compile(r"^(.*)\((\d+)\)$")  # "Toy Story (1995)": the title, then the year


class MovieInfo:
    """A movie of movies.dat: its id, genres and title (without the year)."""

    def __init__(self, index, categories, title):
        self.index = int(index)
        self.categories = categories
        self.title = title

    def value(self, categories_dict, movie_title_dict):
        """[[id], [genre ids], [title word ids]]."""
        return [[self.index], [categories_dict[c] for c in self.categories],
                [movie_title_dict[w.lower()] for w in self.title.split()]]

    def __str__(self):
        return f"<MovieInfo id({self.index}), title({self.title}), categories({self.categories})>"

    __repr__ = __str__


class UserInfo:
    """A user of users.dat: id, gender, age (an index in age_table) and occupation id."""

    def __init__(self, index, gender, age, job_id):
        self.index = int(index)
        self.is_male = gender == "M"
        self.age = age_table.index(int(age))
        self.job_id = int(job_id)

    def value(self):
        """[[id], [0 male / 1 female], [age index], [job id]]."""
        return [[self.index], [0 if self.is_male else 1], [self.age], [self.job_id]]

    def __str__(self):
        gender = "M" if self.is_male else "F"
        return f"<UserInfo id({self.index}), gender({gender}), age({age_table[self.age]}), job({self.job_id})>"

    __repr__ = __str__


class Movielens(Dataset):
    """The MovieLens 1M dataset: each item is one rating, a tuple of int64 arrays (user id,
    gender, age index, job id, movie id, genre ids, title word ids) and the rating as a float
    array, rescaled from 1..5 to -3..5 (2 r - 5).

    Each rating goes to the test set with probability test_ratio, drawn in file order from a
    NumPy RandomState(rand_seed) (the stream Paddle draws from NumPy's global generator, which
    oar leaves alone), so train and test are complementary for equal seeds. Genre and title word
    ids index the sorted genres and the sorted lower-cased title words.

    oar does not download: data_file, or movielens%2Fml-1m.zip in Paddle's cache directory
    (~/.cache/paddle/dataset/sentiment/, where Paddle puts it), must exist; otherwise
    FileNotFoundError names it.

    Args:
        data_file (str, optional): The path of ml-1m.zip. Default: None (the cache).
        mode (str, optional): 'train' or 'test'. Default: 'train'.
        test_ratio (float, optional): The share of ratings in the test set. Default: 0.1.
        rand_seed (int, optional): The seed of the split. Default: 0.
        download (bool, optional): Allow data_file to be left out (oar then reads the cache).
            Default: True.

    Examples:
        >>> import os, tempfile, zipfile
        >>> import oar
        >>> files = {'ml-1m/movies.dat': '1::Toy Story (1995)::Animation|Comedy\\n',
        ...          'ml-1m/users.dat': '1::F::25::10::48067\\n',
        ...          'ml-1m/ratings.dat': '1::1::5::978300760\\n1::1::3::978300761\\n'}
        >>> with tempfile.TemporaryDirectory() as d:
        ...     path = os.path.join(d, 'ml-1m.zip')
        ...     with zipfile.ZipFile(path, 'w') as z:
        ...         for name, text in files.items():
        ...             z.writestr(name, text)
        ...     ratings = oar.text.datasets.Movielens(data_file=path, mode='train', test_ratio=0.0)
        >>> print(len(ratings), ratings.movie_info[1], ratings.user_info[1])
        2 <MovieInfo id(1), title(Toy Story ), categories(['Animation', 'Comedy'])>
        <UserInfo id(1), gender(F), age(25), job(10)>
        >>> print([item.tolist() for item in ratings[0]])
        [[1], [1], [2], [10], [1], [0, 1], [1, 0], [5.0]]
    """

    def __init__(self, data_file=None, mode="train", test_ratio=0.1, rand_seed=0, download=True):
        if not isinstance(mode, str) or mode.lower() not in ("train", "test"):
            raise AssertionError(f"mode should be 'train', 'test', but got {mode}")
        self.mode = mode.lower()
        self.data_file = resolve("Movielens", "data_file", data_file, download, "sentiment", URL)
        self.test_ratio = test_ratio
        self.rand_seed = rand_seed
        self._load_meta_info()
        self._load_data()

    def _lines(self, package, name):
        try:
            with package.open(name) as f:
                return [line for line in (raw.decode("latin").strip() for raw in f) if line]
        except KeyError:
            raise ValueError(f"Movielens: {self.data_file!r} has no member {name!r}; is it ml-1m.zip?") from None

    def _load_meta_info(self):
        self.movie_info, self.user_info = {}, {}
        with open_zip("Movielens", self.data_file) as package:
            movies = self._lines(package, "ml-1m/movies.dat")
            users = self._lines(package, "ml-1m/users.dat")
        title_words, categories = set(), set()
        for line in movies:
            movie_id, title, genres = line.split("::")
            genres = genres.split("|")
            title = _TITLE.match(title).group(1)
            self.movie_info[int(movie_id)] = MovieInfo(index=movie_id, categories=genres, title=title)
            categories.update(genres)
            title_words.update(w.lower() for w in title.split())
        # sorted: Paddle enumerates sets of strings, whose order changes from run to run
        self.movie_title_dict = {w: i for i, w in enumerate(sorted(title_words))}
        self.categories_dict = {c: i for i, c in enumerate(sorted(categories))}
        for line in users:
            uid, gender, age, job, _ = line.split("::")
            self.user_info[int(uid)] = UserInfo(index=uid, gender=gender, age=age, job_id=job)

    def _load_data(self):
        draws = np.random.RandomState(self.rand_seed)
        is_test = self.mode == "test"
        self.data = []
        with open_zip("Movielens", self.data_file) as package:
            ratings = self._lines(package, "ml-1m/ratings.dat")
        for line in ratings:
            if (draws.random_sample() < self.test_ratio) != is_test:
                continue
            uid, movie_id, rating, _ = line.split("::")
            movie, user = self.movie_info[int(movie_id)], self.user_info[int(uid)]
            self.data.append(user.value() + movie.value(self.categories_dict, self.movie_title_dict)
                             + [[float(rating) * 2 - 5.0]])

    def __getitem__(self, idx):
        return tuple(np.array(d) for d in self.data[idx])

    def __len__(self):
        return len(self.data)
