"""Prequential evaluation of a river model with streammetrics: several metrics at once, a rolling
window and an exponentially decayed view, printed as the stream goes.

    python examples/online_river.py [--n 1250] [--every 250] [--window 200] [--half-life 100]
"""

from __future__ import annotations

import argparse
import itertools
import json

from river import datasets, evaluate, linear_model, preprocessing

import streammetrics as sm
from streammetrics.integrations.river import RiverMetric


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1250, help="samples of the Phishing stream to use")
    parser.add_argument("--every", type=int, default=250, help="print every this many samples")
    parser.add_argument("--window", type=int, default=200)
    parser.add_argument("--half-life", type=float, default=100.0)
    args = parser.parse_args(argv)

    stream = list(itertools.islice(datasets.Phishing(), args.n))
    model = preprocessing.StandardScaler() | linear_model.LogisticRegression()

    # 1. The hand-written loop: one collection (one shared confusion state for F1/precision/
    #    recall), a rolling window and a decayed view, each updated one sample at a time.
    overall = sm.MetricCollection(
        {
            "accuracy": sm.Accuracy(),
            "f1": sm.F1(),
            "precision": sm.Precision(),
            "recall": sm.Recall(),
            "mcc": sm.MCC(),
        }
    )
    rolling = sm.Rolling(sm.F1(), window=args.window)
    decayed = sm.Decayed(sm.Accuracy(), half_life=args.half_life)
    for step, (x, y) in enumerate(stream, start=1):
        y_pred = model.predict_one(x)  # test, then train
        if y_pred is not None:
            overall.update_one(y, y_pred)
            rolling.update_one(y, y_pred)
            decayed.update_one(y, y_pred)
        model.learn_one(x, y)
        if step % args.every == 0 or step == len(stream):
            values = {k: round(v, 4) for k, v in overall.compute().items()}
            print(
                f"[{step:>6}] {values}  rolling_f1={rolling.compute():.4f}  decayed_acc={decayed.compute():.4f}"
            )

    # 2. The same evaluation through river's own driver, with the adapter.
    wrapped = RiverMetric(sm.MetricCollection({"accuracy": sm.Accuracy(), "f1": sm.F1()}))
    evaluate.progressive_val_score(
        stream, preprocessing.StandardScaler() | linear_model.LogisticRegression(), wrapped
    )
    result = {
        "overall": overall.compute(),
        "rolling_f1": rolling.compute(),
        "decayed_accuracy": decayed.compute(),
        "progressive_val_score": wrapped.get(),
        "n_samples": overall.n_samples,
    }
    print(json.dumps(result, indent=2))
    return result


if __name__ == "__main__":
    main()
