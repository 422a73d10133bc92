"""Scripts written without spaces between words: where the console cannot take a space for a word's end.

Chinese and Japanese: Han (the unified ideographs, Extension A, the compatibility ideographs, and Extension
B on, outside the Basic Multilingual Plane), the ideographic iteration marks, and kana in full and half width.
"""

from __future__ import annotations

UNSPACED = (
    "\u3005-\u3007\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f"
    "\U00020000-\U0003ffff"
)
"""The characters of those scripts, as the inside of a regular expression's character class."""
