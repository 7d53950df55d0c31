"""Turns a scalar log into a plot: `python -m oar.utils.plot_scalars LOG_DIR [-o curves.html]`.

Writes a self-contained HTML page with one SVG line chart per tag (no plotting library needed), and
also a PNG when matplotlib happens to be installed and the output name ends in .png."""
import argparse
import html
import os
import sys

from .scalar_log import read_scalars

_W, _H, _PAD = 560, 260, 48


def _svg_chart(tag, points):
    steps = [s for s, _ in points]
    values = [v for _, v in points]
    x0, x1 = min(steps), max(steps)
    y0, y1 = min(values), max(values)
    if x1 == x0:
        x1 = x0 + 1
    if y1 == y0:
        y0, y1 = y0 - 0.5, y1 + 0.5

    def xy(s, v):
        return (_PAD + (s - x0) / (x1 - x0) * (_W - 2 * _PAD),
                _H - _PAD + (y0 - v) / (y1 - y0) * (_H - 2 * _PAD))

    path = " ".join(f"{x:.1f},{y:.1f}" for x, y in (xy(s, v) for s, v in points))
    ticks = []
    for i in range(5):
        v = y0 + (y1 - y0) * i / 4
        _, y = xy(x0, v)
        ticks.append(f'<text x="{_PAD - 6}" y="{y + 4:.1f}" text-anchor="end" font-size="11">{v:.4g}</text>'
                     f'<line x1="{_PAD}" x2="{_W - _PAD}" y1="{y:.1f}" y2="{y:.1f}" stroke="#eee"/>')
    return (f'<figure><figcaption>{html.escape(tag)}</figcaption>'
            f'<svg width="{_W}" height="{_H}" xmlns="http://www.w3.org/2000/svg">{"".join(ticks)}'
            f'<polyline fill="none" stroke="#1f77b4" stroke-width="2" points="{path}"/>'
            f'<text x="{_PAD}" y="{_H - 18}" font-size="11">step {x0}</text>'
            f'<text x="{_W - _PAD}" y="{_H - 18}" font-size="11" text-anchor="end">step {x1}</text>'
            f'</svg></figure>')


def write_html(series, out_path, title="oar training curves"):
    charts = "".join(_svg_chart(tag, pts) for tag, pts in sorted(series.items()) if pts)
    page = (f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
            "<style>body{font-family:sans-serif} figure{display:inline-block;margin:8px}</style></head>"
            f"<body><h1>{html.escape(title)}</h1>{charts}</body></html>")
    tmp = out_path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(page)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, out_path)


def write_png(series, out_path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    tags = sorted(series)
    fig, axes = plt.subplots(len(tags), 1, figsize=(7, 2.6 * len(tags)), squeeze=False)
    for ax, tag in zip(axes[:, 0], tags):
        steps, values = zip(*series[tag])
        ax.plot(steps, values)
        ax.set_title(tag)
        ax.set_xlabel("step")
    fig.tight_layout()
    fig.savefig(out_path)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("log_dir", help="a directory written by oar.callbacks.VisualDL")
    parser.add_argument("-o", "--output", default=None, help="output file (.html, or .png with matplotlib)")
    args = parser.parse_args(argv)
    series = read_scalars(args.log_dir)
    if not series:
        print(f"plot_scalars: {args.log_dir} holds no scalars", file=sys.stderr)
        return 1
    out = args.output or os.path.join(args.log_dir if os.path.isdir(args.log_dir) else ".", "curves.html")
    if out.endswith(".png"):
        write_png(series, out)
    else:
        write_html(series, out)
    print(f"wrote {out} ({len(series)} series)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
