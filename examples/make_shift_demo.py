"""Generates the shift demo: a vessel-power-like regression task (Shifts 2.0 paper) with a canonical
partition (train / dev_in / eval_in at low wind, dev_out / eval_out at high wind and later in
time, with hull fouling), a single model and a 5-member ensemble of polynomial ridge
regressions trained on the in-domain training data (bootstrap samples and feature subsets for the
members), each predicting a mean and a variance that follows its residuals (heteroscedastic
noise grows with speed).

Usage: make_shift_demo.py OUT.csv [--n N] [--seed S]
Columns: partition, power, single, single_var, m0..m4 (member means), v0..v4 (member variances).
"""
import argparse

import numpy as np


def physics(speed, wind, draft, fouling):
    """Reference power (MW-like units): cubic in speed, wind and draft resistance, fouling."""
    return 0.02 * speed ** 3 * (1 + 0.15 * fouling) + 0.08 * wind ** 2 + 1.5 * draft


def features(speed, wind, draft):
    return np.column_stack([np.ones_like(speed), speed, speed ** 2, speed ** 3, wind, wind ** 2,
                            draft, speed * wind])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--n", type=int, default=6000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    n = args.n
    # Partitions: in-domain (wind < 8, early) vs shifted (wind >= 8, late: fouling grows).
    names = np.array(["train", "dev_in", "eval_in", "dev_out", "eval_out"])
    share = np.array([0.5, 0.1, 0.15, 0.1, 0.15])
    part = names[rng.choice(len(names), size=n, p=share)]
    shifted = np.char.endswith(part.astype(str), "out")
    wind = np.where(shifted, rng.uniform(8, 16, n), rng.uniform(0, 8, n))
    # Vessels slow down in heavy weather: a spurious speed-wind correlation.
    speed = np.clip(rng.normal(14 - 0.3 * wind, 2), 5, 22)
    draft = rng.uniform(8, 12, n)
    fouling = np.where(shifted, rng.uniform(1, 3, n), rng.uniform(0, 1, n))
    # Heteroscedastic noise: faster vessels have noisier power readings.
    noise_sd = 0.4 + 0.12 * speed
    power = physics(speed, wind, draft, fouling) + rng.normal(0, 1, n) * noise_sd

    x = features(speed, wind, draft)
    train = np.flatnonzero(part == "train")

    def fit(rows, cols):
        """Ridge fit of the mean, plus a log-linear model of the residual variance (in speed and
        wind), so that each model's predicted variance tracks its noise in-domain."""
        a = x[rows][:, cols]
        coef = np.linalg.solve(a.T @ a + 1e-3 * np.eye(len(cols)), a.T @ power[rows])
        resid = power[rows] - a @ coef
        z = np.column_stack([np.ones(len(rows)), speed[rows], wind[rows]])
        g = np.linalg.lstsq(z, np.log(resid ** 2 + 1e-6), rcond=None)[0]
        # log E[r^2] = E[log r^2] + 1.27 for Gaussian residuals.
        var = np.exp(np.column_stack([np.ones(n), speed, wind]) @ g + 1.27)
        return x[:, cols] @ coef, var

    single_mean, single_var = fit(train, np.arange(x.shape[1]))
    members_mean, members_var = [], []
    for m in range(5):
        idx = rng.choice(train, size=len(train), replace=True)
        cols = np.sort(rng.permutation(x.shape[1])[: 6 + m % 3])  # members see different features
        mean, var = fit(idx, cols)
        members_mean.append(mean)
        members_var.append(var)
    with open(args.out, "w") as f:
        cols = ["partition", "power", "single", "single_var"] + [f"m{i}" for i in range(5)] + [
            f"v{i}" for i in range(5)]
        f.write(",".join(cols) + "\n")
        for i in range(n):
            row = [part[i], f"{power[i]:.6g}", f"{single_mean[i]:.6g}", f"{single_var[i]:.6g}"]
            row += [f"{members_mean[m][i]:.6g}" for m in range(5)]
            row += [f"{members_var[m][i]:.6g}" for m in range(5)]
            f.write(",".join(row) + "\n")


if __name__ == "__main__":
    main()
