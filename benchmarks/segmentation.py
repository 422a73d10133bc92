"""Sentence splitting in Chinese, Japanese and German: ICU, sentencex, and the engine's choice of the two.

    .venv/bin/python benchmarks/segmentation.py

A hand-written set of short passages with their sentences marked: ordinal dates ("am 3. Mai"),
abbreviations ("z. B.", "Nr.", "ca.", "Dr."), decimal points, German quotes, Chinese and Japanese quotes
that close after the full stop, ellipses, full-width marks, an emoji and a character outside the Basic
Multilingual Plane. For each splitter and language it prints the sentences found exactly (precision,
recall and F1 over the marked sentences) and the time per 1,000 characters, and checks that every span
the engine returns is an exact code-point slice of its text. Exits non-zero when the engine's F1 in a
language is below the better library's or below 0.75, or a span is not exact.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from verification.claims.segmentation import sentence_spans  # noqa: E402

# Each passage is its sentences, "|" marking where one ends (German ones are joined by a space).
GOLD = {
    "zh": [
        "中国茶叶博物馆开放时间为上午 9 点至下午 5 点。|周一闭馆（法定节假日除外）。|免费参观，无需预约。",
        "他说：“明天见。”|然后就走了。",
        "退款将在 5 至 10 个工作日内退回原支付方式……|如有疑问，请联系客服！|谢谢。",
        "价格为 3.5 元。|会员享受九折优惠？|是的。",
        "😀今天天气很好。|𠀀字在扩展 B 区。",
        "第一步：登录账户。|第二步：点击“退款”。|第三步：等待审核。",
    ],
    "ja": [
        "年間プランはご購入から30日以内であれば全額返金できます。|30日を過ぎると返金はできません。",
        "彼は「はい、わかりました。」と言った。|それから帰った。",
        "営業時間は午前9時から午後5時までです！|土日は休みです。",
        "価格は1.5万円です。|本当ですか？|はい。",
        "キリンが、木の中から首を出しています。|奥には山が見えます。",
        "返品は未使用品に限ります。|詳しくはお問い合わせください……|よろしくお願いします。",
    ],
    "de": [
        "Jahresabos können z. B. innerhalb von 30 Tagen erstattet werden.|Monatsabos sind ausgeschlossen.",
        "Am 3. Mai ist das Büro geschlossen.|Ab dem 4. Mai gelten die üblichen Zeiten.",
        "Der Preis beträgt ca. 1.200 Euro.|Die Lieferung dauert 2 bis 3 Tage.",
        "Bitte wenden Sie sich an Dr. Weber.|Er ist Ansprechpartner für Bestellung Nr. 42.",
        "„Das ist erledigt.“|Danach kam keine Antwort mehr.",
        "Die Rate sinkt um 1,5 Prozentpunkte.|Ist das korrekt?|Ja!",
    ],
}
MIN_F1 = 0.75


def _joined(sentences: list[str], language: str) -> str:
    """The passage as written: German sentences with a space between them, Chinese and Japanese without."""
    return (" " if language == "de" else "").join(sentences)


def engine(language: str, text: str) -> list[str]:
    return [text[start:end] for start, end in sentence_spans(text, language)]


def icu(language: str, text: str) -> list[str]:
    from icu4py.breakers import SentenceBreaker
    from icu4py.locale import Locale

    return [piece.strip() for piece in SentenceBreaker(text, Locale(language)) if piece.strip()]


def sentencex(language: str, text: str) -> list[str]:
    from sentencex import segment

    return [piece.strip() for piece in segment(language, text) if piece.strip()]


def score(split: Callable[[str, str], list[str]], language: str) -> tuple[float, float, float, float]:
    found = marked = right = 0
    characters = 0
    started = time.perf_counter()
    for _ in range(20):
        for passage in GOLD[language]:
            gold = passage.split("|")
            text = _joined(gold, language)
            got = split(language, text)
            found, marked, characters = found + len(got), marked + len(gold), characters + len(text)
            right += len(set(got) & set(gold))
    elapsed = time.perf_counter() - started
    precision, recall = right / found, right / marked
    f1 = 2 * precision * recall / (precision + recall) if right else 0.0
    return precision, recall, f1, elapsed / characters * 1000 * 1000


def exact_spans() -> bool:
    for language, passages in GOLD.items():
        for passage in passages:
            text = _joined(passage.split("|"), language)
            for start, end in sentence_spans(text, language):
                if text[start:end] != text[start:end].strip() or not text[start:end]:
                    return False
    return True


def main() -> int:
    splitters = {"icu": icu, "sentencex": sentencex, "engine": engine}
    failed = False
    print(f"{'splitter':<10}{'lang':<6}{'precision':>10}{'recall':>8}{'F1':>7}{'ms/1000 chars':>15}")
    best: dict[str, float] = {}
    for name, split in splitters.items():
        for language in GOLD:
            precision, recall, f1, ms = score(split, language)
            print(f"{name:<10}{language:<6}{precision:>10.2f}{recall:>8.2f}{f1:>7.2f}{ms:>15.3f}")
            if name == "engine":
                failed |= f1 < best[language] or f1 < MIN_F1
            else:
                best[language] = max(best.get(language, 0.0), f1)
    spans = exact_spans()
    print(f"every span the engine returns an exact slice of its text: {spans}")
    return 1 if failed or not spans else 0


if __name__ == "__main__":
    sys.exit(main())
