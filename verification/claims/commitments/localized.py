"""Values in German, Chinese and Japanese, normalised as the English ones are (`values.py`): times in
minutes after midnight, durations in days, money in its currency, dates as (year, month, day).

"晚上 9 点" is 21:00 and "下午 5 点" 17:00; "三十天" is 30 days (Chinese numerals by cn2an); "３０日以内" is a
window of 30 days; "9 bis 17 Uhr" ends at 17:00, "30 Tage" is 30 days and "1,5 %" is 1.5 percent. A
number is read from digits of any width or from Chinese numerals before a counter, so "周一" (Monday)
stays a word. Offsets are into the original text.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

import cn2an

from verification.claims.commitments.mention import Mention

_DIGITS = r"[0-9０-９]+(?:[.,．，][0-9０-９]+)*"
_HAN_DIGITS = r"[零〇一二两三四五六七八九十百千万萬亿]+"
_NUMBER = rf"(?:{_DIGITS}|{_HAN_DIGITS})"

# Hours after these are in the afternoon or evening; 中午 ("noon") takes 12 as itself and 1 as 13.
_LATER = ("下午", "晚上", "傍晚", "夜里", "夜間", "午後", "夜", "中午")
_CJK_TIME = re.compile(
    rf"(?P<half>上午|下午|晚上|早上|中午|凌晨|傍晚|夜里|午前|午後|夜|朝)?\s*(?P<hour>{_NUMBER})\s*[点點時]"
    rf"(?:\s*(?P<minute>半|{_NUMBER})\s*分?)?"
)
_CLOCK = re.compile(r"(?<![0-9])(?P<hour>[0-2]?[0-9])\s*[:：]\s*(?P<minute>[0-5][0-9])(?:\s*Uhr)?")
_GERMAN_TIME = re.compile(r"(?<![0-9])(?P<hour>[0-2]?[0-9])(?:[.:](?P<minute>[0-5][0-9]))?\s*Uhr\b")
# The start of "9 bis 17 Uhr": a time though "Uhr" follows only its end.
_GERMAN_RANGE_START = re.compile(
    r"(?<![0-9])(?P<hour>[0-2]?[0-9])(?:[.:](?P<minute>[0-5][0-9]))?"
    r"(?=\s*(?:bis|-|–)\s*[0-2]?[0-9](?:[.:][0-5][0-9])?\s*Uhr\b)"
)
_CJK_DATE = re.compile(rf"(?:(?P<year>{_NUMBER})\s*年\s*)?(?P<month>{_NUMBER})\s*月\s*(?P<day>{_NUMBER})\s*[日号號]")

_CJK_DURATION_UNITS = {
    "天": 1.0, "日": 1.0, "日間": 1.0, "周": 7.0, "週": 7.0, "週間": 7.0, "星期": 7.0, "个星期": 7.0,
    "个月": 30.0, "個月": 30.0, "か月": 30.0, "ヶ月": 30.0, "カ月": 30.0, "ヵ月": 30.0, "年": 365.0,
    "小时": 1 / 24, "小時": 1 / 24, "時間": 1 / 24, "分钟": 1 / 1440, "分鐘": 1 / 1440, "分間": 1 / 1440,
}
_GERMAN_DURATION_UNITS = {
    "tag": 1.0, "tage": 1.0, "tagen": 1.0, "werktag": 1.0, "werktage": 1.0, "werktagen": 1.0,
    "woche": 7.0, "wochen": 7.0, "monat": 30.0, "monate": 30.0, "monaten": 30.0, "jahr": 365.0,
    "jahre": 365.0, "jahren": 365.0, "stunde": 1 / 24, "stunden": 1 / 24, "minute": 1 / 1440,
    "minuten": 1 / 1440,
}
_CJK_DURATION = re.compile(
    rf"(?P<number>{_NUMBER})\s*(?P<unit>{'|'.join(sorted(map(re.escape, _CJK_DURATION_UNITS), key=len, reverse=True))})"
    r"(?P<window>以内|之内|以內|内|內)?"
)
_GERMAN_DURATION = re.compile(
    rf"(?P<window>innerhalb\s+(?:von\s+)?|binnen\s+)?(?P<number>{_DIGITS})\s*"
    rf"(?P<unit>{'|'.join(sorted(_GERMAN_DURATION_UNITS, key=len, reverse=True))})\b", re.IGNORECASE,
)
_CURRENCIES = {"元": "CNY", "块": "CNY", "人民币": "CNY", "円": "JPY", "¥": "JPY", "￥": "CNY", "€": "EUR",
               "euro": "EUR", "eur": "EUR", "$": "USD"}
_MONEY_AFTER = re.compile(rf"(?P<number>{_NUMBER})\s*(?P<unit>人民币|元|块|円|€|Euro|EUR)", re.IGNORECASE)
_MONEY_BEFORE = re.compile(rf"(?P<unit>[¥￥€$])\s*(?P<number>{_DIGITS})")
_PERCENT = re.compile(rf"(?P<number>{_NUMBER})\s*(?:[%％]|Prozent\b)|百分之(?P<cn>{_NUMBER})")
_PLAIN = re.compile(_DIGITS)


def find_localized_values(text: str, language: str) -> list[Mention]:
    """The values of `text` written in `language` ("de", "zh" or "ja"), ordered by position."""
    return list(_find(text, language))


@lru_cache(maxsize=8192)
def _find(text: str, language: str) -> tuple[Mention, ...]:
    found: list[Mention] = []
    taken: list[tuple[int, int]] = []

    def add(mention: Mention | None) -> None:
        if mention is not None and not any(s < mention.end and mention.start < e for s, e in taken):
            found.append(mention)
            taken.append((mention.start, mention.end))

    german = language == "de"
    for match in (_GERMAN_TIME if german else _CJK_TIME).finditer(text):
        add(_time(match, german))
    for match in _GERMAN_RANGE_START.finditer(text) if german else ():
        add(_time(match, german))
    for match in _CLOCK.finditer(text):
        add(_time(match, german))
    if not german:
        for match in _CJK_DATE.finditer(text):
            add(_date(match))
    for match in (_GERMAN_DURATION if german else _CJK_DURATION).finditer(text):
        add(_duration(match, german))
    for pattern in (_MONEY_AFTER, _MONEY_BEFORE):
        for match in pattern.finditer(text):
            add(_money(match, german))
    for match in _PERCENT.finditer(text):
        value = number(match.group("number") or match.group("cn"), german)
        if value is not None:
            add(Mention("percentage", match.group(0), match.start(), match.end(), value, "%"))
    for match in _PLAIN.finditer(text):
        value = number(match.group(0), german)
        if value is not None:
            add(Mention("number", match.group(0), match.start(), match.end(), value))
    return tuple(sorted(found, key=lambda mention: mention.start))


def number(written: str, german: bool = False) -> float | None:
    """The number written in digits of any width or in Chinese numerals; a German comma is a decimal point
    and its period a thousands separator ("1.000,5"), elsewhere the other way round."""
    folded = unicodedata.normalize("NFKC", written).replace("．", ".").replace("，", ",")
    if folded and not folded[0].isdigit():
        try:
            return float(cn2an.cn2an(folded, "smart"))
        except ValueError:
            return None
    thousands, decimal = (".", ",") if german else (",", ".")
    if german and re.fullmatch(r"\d{1,3}(?:\.\d{3})+", folded) is None and folded.count(".") == 1:
        thousands = ""  # "1.5" in German text is a decimal written the English way
    try:
        return float(folded.replace(thousands, "").replace(decimal, ".") if thousands else folded.replace(",", "."))
    except ValueError:
        return None


def _time(match: re.Match[str], german: bool) -> Mention | None:
    hour = number(match.group("hour"), german)
    minute_text = match.group("minute")
    minute = 30.0 if minute_text == "半" else (number(minute_text, german) if minute_text else 0.0)
    if hour is None or minute is None or hour > 24 or minute >= 60:
        return None
    half = match.groupdict().get("half")
    if half in _LATER and hour < 12 and not (half == "中午" and hour >= 11):
        hour += 12
    return Mention("time", match.group(0), match.start(), match.end(), hour * 60 + minute, "minute")


def _date(match: re.Match[str]) -> Mention | None:
    year = number(match.group("year")) if match.group("year") else None
    month, day = number(match.group("month")), number(match.group("day"))
    if month is None or day is None or not (1 <= month <= 12 and 1 <= day <= 31):
        return None
    parts = (int(year) if year else None, int(month), int(day))
    return Mention("date", match.group(0), match.start(), match.end(), None, None, parts)


def _duration(match: re.Match[str], german: bool) -> Mention | None:
    count = number(match.group("number"), german)
    if count is None:
        return None
    unit = match.group("unit")
    days = (_GERMAN_DURATION_UNITS[unit.lower()] if german else _CJK_DURATION_UNITS[unit]) * count
    role = "upper" if match.group("window") else ""
    return Mention("duration", match.group(0), match.start(), match.end(), days, "day", role=role)


def _money(match: re.Match[str], german: bool) -> Mention | None:
    amount = number(match.group("number"), german)
    if amount is None:
        return None
    currency = _CURRENCIES.get(match.group("unit").lower(), match.group("unit"))
    return Mention("money", match.group(0), match.start(), match.end(), amount, currency)
