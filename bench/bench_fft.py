"""Fourier transforms (oar.fft on FFTW) beside PyTorch (torch.fft: MKL/pocketfft) and Paddle
(paddle.fft: pocketfft) in the same run: 1-D transforms of 2^10 to 2^20 points (real: rfft; complex:
fft) in a batch of 2^20 points in all, a 2-D rfft2, irfft, and an STFT with its inverse.
Usage: bash tools/setup_bench.sh && .venv/bin/python bench/bench_fft.py
Target (issue 18): at least as fast as Paddle and PyTorch (ratios >= 1).
"""

from harness import compare

BODY = r'''
rng = np.random.default_rng(0)
FFT = F.fft
def axis_kw(a):
    return {"dim": a} if FW == "torch" else {"axis": a}
for log_n in (10, 14, 17, 20):
    n = 1 << log_n
    batch = max(1, (1 << 20) // n)
    number = 20 if log_n < 17 else 5
    xr = T(rng.standard_normal((batch, n)).astype(np.float32))
    xc = T((rng.standard_normal((batch, n)) + 1j * rng.standard_normal((batch, n))).astype(np.complex64))
    res[f"rfft 2^{log_n} x{batch} f32"] = best(lambda: FFT.rfft(xr), number)
    res[f"fft 2^{log_n} x{batch} c64"] = best(lambda: FFT.fft(xc), number)
    half = FFT.rfft(xr)
    res[f"irfft 2^{log_n} x{batch} c64"] = best(lambda: FFT.irfft(half, n), number)
x64 = T(rng.standard_normal((16, 1 << 16)))
res["rfft 2^16 x16 f64"] = best(lambda: FFT.rfft(x64), 10)
img = T(rng.standard_normal((32, 256, 256)).astype(np.float32))
res["rfft2 [32, 256, 256] f32"] = best(lambda: FFT.rfft2(img), 5)
res["fft over axis 0 [4096, 256] c64"] = best(lambda: FFT.fft(xc2, **axis_kw(0)), 20) if (
    xc2 := T((rng.standard_normal((4096, 256)) + 1j).astype(np.complex64))) is not None else None
sig = T(rng.standard_normal((8, 1 << 16)).astype(np.float32))
win = T(np.hanning(512).astype(np.float32))
if FW == "torch":
    spec_fn = lambda: F.stft(sig, 512, 128, window=win, return_complex=True)
    inv_fn = lambda s: F.istft(s, 512, 128, window=win)
else:
    spec_fn = lambda: F.signal.stft(sig, 512, 128, window=win)
    inv_fn = lambda s: F.signal.istft(s, 512, 128, window=win)
res["stft 8x2^16 n_fft 512 hop 128"] = best(spec_fn, 5)
spec = spec_fn()
res["istft of the same"] = best(lambda: inv_fn(spec), 5)
t = T(rng.standard_normal((64, 4096)).astype(np.float32), grad=True)
res["rfft fwd+bwd [64, 4096]"] = best(lambda: grad(F.abs(FFT.rfft(t)).sum(), [t]), 20)
'''

if __name__ == "__main__":
    compare(BODY)
