"""The public data sets the scorer learns from, with their licences: the model card and REPLAY.md list them."""

from __future__ import annotations

DATA_SETS = (
    ("SNLI 1.0 dev + test (via e-SNLI)", "CC BY-SA 4.0", "OanaMariaCamburu/e-SNLI", "7b585a3"),
    ("Counterfactually augmented SNLI", "Apache-2.0 (text CC BY-SA)", "acmi-lab/counterfactually-augmented-data",
     "6f232a1"),
    ("ConjNLI", "MIT", "swarnaHub/ConjNLI", "10e0515"),
    ("Breaking NLI", "CC BY-SA 4.0", "BIU-NLP/Breaking_NLI", "8a7658c"),
    ("MED", "CC BY-SA 4.0", "verypluming/MED", "860ba36"),
    ("BEGIN", "CC BY 4.0; topicalchat CDLA-Sharing-1.0", "google/BEGIN-dataset", "6e65f0d"),
    ("Fool Me Twice, dev", "Apache-2.0 (evidence CC BY-SA)", "google-research/fool-me-twice", "d9db753"),
    ("Symmetric FEVER v0.2, dev", "CC BY-SA 3.0", "TalSchuster/FeverSymmetric", "fa25d17"),
    ("WiCE train token file (claims disjoint from claim_dev)", "ODC-BY; text CC-BY-SA", "ryokamoi/wice",
     "ddeb6c1"),
    ("SummEdits `evaluation`, the \"fit\" half by source", "Apache-2.0", "salesforce/factualNLG", "0da1dfa"),
    ("HaluEval QA, the \"fit\" half by source", "MIT", "RUCAIBox/HaluEval", "b7253db"),
)
