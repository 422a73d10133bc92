"""Answers in Chinese, Japanese and German are verified or sent to a person, never rejected unseen; an answer
in a language the offline verifier does not read goes to a person with the language named."""

from __future__ import annotations

import pytest

from verification.claims.commitments.localized import find_localized_values
from verification.claims.extraction import extract_claims
from verification.claims.language import detect
from verification.claims.segmentation import sentence_spans, words
from verification.engine import check_case
from verification.types import Case, Reason, Source, State, Terminal

MUSEUM = Source(id="museum", title="中国茶叶博物馆",
                text="中国茶叶博物馆开放时间为上午 9 点至下午 5 点，周一闭馆。免费参观，无需预约。")
WEATHER = Source(id="weather", title="杭州天气", text="杭州明天多云转小雨，气温 12 至 18 度。")
REFUNDS_JA = Source(id="refunds", title="返金ポリシー",
                    text="年間プランはご購入から30日以内であれば全額返金できます。30日を過ぎると返金はできません。")
REFUNDS_DE = Source(id="agb", title="Erstattung", text=(
    "Jahresabos können innerhalb von 30 Tagen nach dem Kauf erstattet werden. "
    "Monatsabos sind von der Erstattung ausgeschlossen."
))


def _run(question: str, answer: str, *sources: Source):
    return check_case(Case(question=question, answer=answer, sources=list(sources)))


@pytest.mark.parametrize(("text", "language"), [
    ("明天下午西湖会放晴，茶叶博物馆晚上 9 点关门。", "zh"),
    ("返金は30日以内に申請できます。", "ja"),
    ("Jahresabos können innerhalb von 30 Tagen erstattet werden, Monatsabos dagegen gar nicht.", "de"),
    ("The Pro plan costs $20 per month.", "en"),
    ("Saludos Amigos", "und"),                     # too short to tell from a name: read in the question's language
    ("พิพิธภัณฑ์ปิดเวลา 17.00 น.", "th"),
    ("يغلق المتحف في الساعة الخامسة مساءً", "ar"),
    ("2006", "und"),
])
def test_the_language_of_a_text_is_detected_without_a_download(text: str, language: str) -> None:
    assert detect(text) == language


def test_a_short_answer_is_read_in_its_question_s_language_else_its_source_s() -> None:
    assert extract_claims("Saludos Amigos", "Which film did Disney release in 1942?")[0].language == "en"
    (german,) = extract_claims("Monatsabos werden erstattet.", "?", ["Monatsabos werden nicht erstattet."])
    assert german.language == "de"


def test_sentences_and_words_keep_code_point_offsets_past_an_emoji() -> None:
    text = "😀明天下午西湖会放晴。𠀀茶叶博物馆周一闭馆！"

    sentences = [text[start:end] for start, end in sentence_spans(text, "zh")]
    found = {word: (start, end) for word, start, end in words(text, "zh")}

    assert sentences == ["😀明天下午西湖会放晴。", "𠀀茶叶博物馆周一闭馆！"]
    start, end = found["放晴"]
    assert text[start:end] == "放晴"


@pytest.mark.parametrize(("text", "language", "kind", "value"), [
    ("茶叶博物馆晚上 9 点关门", "zh", "time", 21 * 60),
    ("下午 5 点", "zh", "time", 17 * 60),
    ("上午９点", "zh", "time", 9 * 60),                 # full-width digits
    ("三十天内可以退款", "zh", "duration", 30),         # Chinese numerals
    ("30日以内であれば", "ja", "duration", 30),
    ("午後3時半に閉店", "ja", "time", 15 * 60 + 30),
    ("innerhalb von 30 Tagen", "de", "duration", 30),
    ("ein Rabatt von 1,5 %", "de", "percentage", 1.5),
    ("kostet 1.200 Euro", "de", "money", 1200),
])
def test_values_are_read_in_each_language(text: str, language: str, kind: str, value: float) -> None:
    (found,) = [mention for mention in find_localized_values(text, language) if mention.kind == kind]

    assert found.value == value


def test_a_chinese_sentence_of_two_clauses_is_two_claims_and_a_weekday_is_not_a_number() -> None:
    claims = extract_claims("明天下午西湖会放晴，茶叶博物馆晚上 9 点关门。")

    assert [claim.text for claim in claims] == ["明天下午西湖会放晴", "茶叶博物馆晚上 9 点关门。"]
    assert {claim.language for claim in claims} == {"zh"}
    assert [c.kind for c in extract_claims("周一闭馆。")[0].commitments] == []


def test_a_condition_keeps_its_clause_with_it() -> None:
    (claim,) = extract_claims("如果在三十天内申请，可以全额退款。")

    assert claim.text == "如果在三十天内申请，可以全额退款。"


def test_the_travel_answer_is_sent_to_a_person_with_its_wrong_hour_refuted() -> None:
    record = _run("明天去西湖和茶叶博物馆，天气怎么样？博物馆几点关门？",
                  "明天下午西湖会放晴，茶叶博物馆晚上 9 点关门。", MUSEUM, WEATHER)

    clear, hours = record.candidates[0].claims
    assert clear.state is State.INSUFFICIENT_EVIDENCE
    assert hours.state is State.REFUTED
    assert "下午 5 点" in hours.rationale and "晚上 9 点" in hours.rationale
    assert [span.source_id for span in hours.evidence] == ["museum"]
    assert record.terminal is Terminal.REVIEW
    assert record.final_answer == "明天下午西湖会放晴，茶叶博物馆晚上 9 点关门。"


def test_a_correct_chinese_answer_is_proven_and_released() -> None:
    answer = "茶叶博物馆开放时间为上午 9 点至下午 5 点，周一闭馆。"
    record = _run("博物馆几点关门？", answer, MUSEUM, WEATHER)

    claims = record.candidates[0].claims
    assert [claim.state for claim in claims] == [State.SUPPORTED, State.SUPPORTED]
    assert {claim.method for claim in claims} == {"offline:verbatim"}
    assert {claim.stratum for claim in claims} == {"proven"}
    assert record.terminal is Terminal.PERMIT
    assert record.final_answer == answer


def test_a_correct_chinese_paraphrase_goes_to_a_person_not_to_reject() -> None:
    record = _run("博物馆几点关门？", "茶叶博物馆下午 5 点关门。", MUSEUM)

    (claim,) = record.candidates[0].claims
    assert claim.state is State.UNRESOLVED
    assert claim.stratum == "unscored"
    assert record.terminal is Terminal.REVIEW


def test_a_japanese_refund_answer_with_the_wrong_number_of_days_is_refuted() -> None:
    record = _run("返金はいつまでできますか？", "年間プランはご購入から60日以内であれば全額返金できます。", REFUNDS_JA)

    (claim,) = record.candidates[0].claims
    assert claim.state is State.REFUTED
    assert "30日以内" in claim.rationale
    assert record.terminal is Terminal.REVIEW


def test_a_japanese_answer_copied_from_its_source_is_released() -> None:
    answer = "年間プランはご購入から30日以内であれば全額返金できます。"
    record = _run("返金はいつまでできますか？", answer, REFUNDS_JA)

    assert record.terminal is Terminal.PERMIT
    assert record.candidates[0].claims[0].alignment


def test_a_correct_german_answer_of_two_clauses_goes_to_a_person() -> None:
    record = _run("Kann ich mein Abo erstatten lassen?",
                  "Jahresabos können innerhalb von 30 Tagen erstattet werden, Monatsabos dagegen gar nicht.",
                  REFUNDS_DE)

    assert record.terminal is Terminal.REVIEW
    assert record.reason is Reason.UNRESOLVED_CLAIM


def test_a_german_sentence_copied_from_its_source_is_proven_by_stem() -> None:
    record = _run("Kann ich mein Abo erstatten lassen?", "Monatsabos sind von der Erstattung ausgeschlossen.",
                  REFUNDS_DE)

    assert record.candidates[0].claims[0].method == "offline:verbatim"
    assert record.terminal is Terminal.PERMIT


def test_a_german_answer_that_drops_a_negation_is_not_proven() -> None:
    source = Source(id="agb", text="Monatsabos werden nicht erstattet.")
    record = _run("Werden Monatsabos erstattet?", "Monatsabos werden erstattet.", source)

    assert record.candidates[0].claims[0].method != "offline:verbatim"
    assert record.terminal is not Terminal.PERMIT


def test_a_japanese_answer_that_swaps_who_did_what_is_not_proven() -> None:
    source = Source(id="photo", text="犬が猫を追いかけています。")
    record = _run("何が写っていますか？", "猫が犬を追いかけています。", source)

    assert record.terminal is not Terminal.PERMIT
    assert record.candidates[0].claims[0].method != "offline:verbatim"


@pytest.mark.parametrize(("answer", "named"), [
    ("พิพิธภัณฑ์ปิดเวลา 17.00 น. ทุกวัน", "Thai"),
    ("يغلق المتحف في الساعة الخامسة مساءً", "Arabic"),
])
def test_an_answer_in_a_script_no_check_reads_goes_to_a_person_with_the_language_named(answer: str, named: str) -> None:
    record = _run("When does the museum close?", answer, Source(id="m", text="The museum closes at 5 pm every day."))

    assert record.terminal is Terminal.REVIEW
    assert record.reason is Reason.LANGUAGE_NOT_SUPPORTED
    assert record.review_package is not None
    assert named in (record.review_package.policy_reason or "")


# Hand-written pairs: (source, answer, consistent). A consistent answer is released or sent to a person,
# never rejected; an inconsistent one is never released.
PAIRS = [
    ("退款将在 5 至 10 个工作日内退回原支付方式。", "退款将在 5 至 10 个工作日内退回原支付方式。", True),
    ("年度套餐在购买后 30 天内可全额退款。月度套餐不退款。", "月度套餐不退款。", True),
    ("年度套餐在购买后 30 天内可全额退款。", "年度套餐在购买后 60 天内可全额退款。", False),
    ("年度套餐在购买后 30 天内可全额退款。", "年度套餐在购买后三十天内可全额退款。", True),
    ("专业版每月 20 元，包含 5 个席位。", "专业版每月 25 元，包含 5 个席位。", False),
    ("月度套餐不退款。", "月度套餐可以退款。", False),
    ("客服热线工作时间为上午 9 点至晚上 8 点。", "客服热线晚上 10 点下班。", False),
    ("如果订单尚未发货，可以修改收货地址。", "可以修改收货地址。", False),
    ("Der Kundendienst ist montags bis freitags von 9 bis 17 Uhr erreichbar.",
     "Der Kundendienst ist montags bis freitags von 9 bis 17 Uhr erreichbar.", True),
    ("Der Kundendienst ist montags bis freitags von 9 bis 17 Uhr erreichbar.",
     "Der Kundendienst ist montags bis freitags von 9 bis 20 Uhr erreichbar.", False),
    ("Jahresabos können innerhalb von 30 Tagen erstattet werden.",
     "Jahresabos können innerhalb von 60 Tagen erstattet werden.", False),
    ("Monatsabos werden nicht erstattet.", "Monatsabos werden erstattet.", False),
    ("Nur Jahresabos können erstattet werden.", "Monatsabos können erstattet werden.", False),
    ("Wenn das Paket noch nicht versandt wurde, kann die Lieferadresse geändert werden.",
     "Die Lieferadresse kann geändert werden.", False),
    ("Die Rückerstattung dauert 5 bis 10 Werktage.", "Die Rückerstattung dauert 5 bis 10 Werktage.", True),
]


@pytest.mark.parametrize(("source", "answer", "consistent"), PAIRS)
def test_a_consistent_answer_is_never_rejected_and_an_inconsistent_one_never_released(
    source: str, answer: str, consistent: bool
) -> None:
    record = _run("?", answer, Source(id="policy", text=source))

    assert record.terminal is not Terminal.REJECT
    if not consistent:  # released only as a repair from the source, never as written
        assert record.terminal is not Terminal.PERMIT or record.final_answer != answer
    if record.terminal is Terminal.PERMIT:
        assert all(claim.stratum == "proven" for claim in record.candidates[-1].claims)
