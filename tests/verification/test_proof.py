"""The proof tier: what a source plainly says is proven and released; resemblance is not proof."""

from __future__ import annotations

import pytest

from verification.claims.extraction import extract_claims
from verification.decision.offline import OfflineVerifier
from verification.engine import check_case
from verification.scorers import make_scorer
from verification.types import Case, Source, State, Terminal

PLANS = Source(id="plans", text=(
    "Pricing. The Pro plan costs $20 per month. It includes 5 seats. You may cancel your subscription at any "
    "time. No refunds are given after 30 days. In 2019, Northwind opened a warehouse in Leeds."
))
TRADE = Source(id="trade", text=(
    "Acme supplies Borealis with steel. Contoso acquired Fabrikam in 2015. The Falcons defeated the Ravens "
    "in the final. Initech sued Globex over the patent. Annual plans are refundable unless the plan was used."
))
RULES = OfflineVerifier(make_scorer("rules"))


def _verdict(answer: str, *sources: Source):
    claims = extract_claims(answer)
    (verdict,) = RULES.verify(claims, list(sources))
    return verdict


@pytest.mark.parametrize("answer", [
    "The Pro plan costs $20 per month.",                      # copied word for word
    "the Pro plan costs $20 per month.",                      # case
    "The Pro plan costs 20 dollars per month.",               # a value written another way
    "It includes five seats.",                                # a number written out
    "Northwind opened a warehouse in Leeds in 2019.",         # a phrase moved
    "No refunds are given after 30 days.",                    # the negation kept
])
def test_what_the_source_plainly_says_is_proven_at_the_top_of_the_scale(answer: str) -> None:
    verdict = _verdict(answer, PLANS)

    assert verdict.state is State.SUPPORTED
    assert verdict.method == "offline:proof"
    assert verdict.release_score == 1.0
    assert verdict.stratum == "proven"
    assert [span.source_id for span in verdict.evidence] == ["plans"]


@pytest.mark.parametrize(("answer", "source_says"), [
    ("Refunds are unavailable for sale items.", "Refunds are unavailable for sale items."),
    ("Refunds are not available for sale items.", "Refunds are unavailable for sale items."),
    ("Refunds are unavailable for sale items.", "Refunds are not available for sale items."),
    ("Gift cards are not refundable.", "Gift cards are non-refundable."),
])
def test_a_quality_denied_by_a_prefix_or_by_a_not_is_proven_either_way(answer: str, source_says: str) -> None:
    verdict = _verdict(answer, Source(id="policy", text=source_says))

    assert (verdict.state, verdict.method) == (State.SUPPORTED, "offline:proof")


def test_a_proof_records_which_claim_word_each_evidence_word_states() -> None:
    answer = "The Pro plan costs 20 dollars per month."
    verdict = _verdict(answer, PLANS)

    pairs = [(word.word, PLANS.text[word.start:word.end]) for word in verdict.extra["alignment"]]
    assert pairs == [("Pro", "Pro"), ("plan", "plan"), ("costs", "costs"), ("20", "20"), ("dollars", "$20"),
                     ("month", "month")]


@pytest.mark.parametrize("answer", [
    "The Pro plan costs $25 per month.",                      # a value changed
    "It includes 6 seats.",
    "Northwind opened a warehouse in Leeds in 2020.",         # a year shifted
    "The Pro plan does not cost $20 per month.",              # a negation added
    "Refunds are given after 30 days.",                       # a negation dropped
    "Northwind opened a warehouse in York in 2019.",          # an entity swapped
    "You must cancel your subscription at any time.",         # a permission made an obligation
    "Annual plans are refundable.",                           # the condition left out
])
def test_a_changed_commitment_is_never_proven(answer: str) -> None:
    verdict = _verdict(answer, PLANS, TRADE)

    assert verdict.method != "offline:proof"
    assert verdict.stratum != "proven"


@pytest.mark.parametrize(("answer", "source_says"), [
    ("Borealis supplies Acme with steel.", "Acme supplies Borealis with steel."),
    ("Fabrikam acquired Contoso in 2015.", "Contoso acquired Fabrikam in 2015."),
    ("The Ravens defeated the Falcons in the final.", "The Falcons defeated the Ravens in the final."),
    ("Globex sued Initech over the patent.", "Initech sued Globex over the patent."),
])
def test_swapped_arguments_are_never_supported(answer: str, source_says: str) -> None:
    verdict = _verdict(answer, TRADE)

    assert verdict.state is not State.SUPPORTED
    assert verdict.release_score == 0.0
    assert source_says in [span.quote for span in verdict.evidence]


def test_a_name_moved_out_of_its_phrase_is_an_argument_swapped_not_a_phrase_moved() -> None:
    # "on their Globex tour" moves as a whole or not at all: its name alone leaves "tour" behind.
    tour = Source(id="tour", text="Initech have been on their Globex tour since 2019.")

    swapped = _verdict("Globex have been on their Initech tour since 2019.", tour)
    moved = _verdict("Since 2019, Initech have been on their Globex tour.", tour)

    assert (swapped.state, swapped.method) == (State.INSUFFICIENT_EVIDENCE, "offline:reordered")
    assert (moved.state, moved.method) == (State.SUPPORTED, "offline:proof")


def test_arguments_swapped_beside_a_word_the_sentence_says_twice_are_caught() -> None:
    # "offer" is said twice and the sentence has a passive of its own; neither hides the swap.
    fire = Source(id="fire", text=(
        "When the hall was destroyed by fire in 1834, the King offered the Palace as a new home for the "
        "council, but the offer was declined."
    ))

    swapped = _verdict("When the hall was destroyed by fire in 1834, the Palace offered the King.", fire)
    kept = _verdict("When the hall was destroyed by fire in 1834, the King offered the Palace.", fire)

    assert (swapped.state, swapped.method) == (State.INSUFFICIENT_EVIDENCE, "offline:reordered")
    assert (kept.state, kept.method) == (State.SUPPORTED, "offline:proof")


def test_a_copy_with_a_year_said_twice_is_proven() -> None:
    # The value checks cite the first mention of 2013; the album's "(2013)" states the claim's last 2013.
    single = Source(id="single", text=(
        'It was released in Australia on 10 May 2013, and in Ireland on 23 June 2013, as the third single '
        'from the album "Word of Mouth" (2013).'))

    verdict = _verdict(single.text, single)

    assert (verdict.state, verdict.method) == (State.SUPPORTED, "offline:proof")


def test_a_conjunct_left_out_takes_its_modal_with_it_only_where_the_next_has_a_verb_of_its_own() -> None:
    gunman = Source(id="gunman", text="Abe Weinberg would become a top gunman and was a later suspect in the killings.")
    museum = Source(id="museum", text="The museum would open at 9 and close at 5.")

    suspect = _verdict("Abe Weinberg was a later suspect in the killings.", gunman)
    closes = _verdict("The museum closes at 5.", museum)

    assert (suspect.state, suspect.method) == (State.SUPPORTED, "offline:proof")
    assert closes.method != "offline:proof"


def test_a_copy_that_says_free_of_something_is_proven_not_read_as_its_opposite() -> None:
    # "worry-free" denies worry in the claim's reading; the source sentence must be read the same way.
    pool = Source(id="pool", text="Our system works with minimal intervention, providing worry-free pool care.")

    verdict = _verdict(pool.text, pool)

    assert (verdict.state, verdict.method) == (State.SUPPORTED, "offline:proof")


def test_initials_are_words_a_proof_must_match() -> None:
    call = Source(id="call", text=(
        "In 1997, J. K. Rowling wrote a book. As Vicki mentioned, the first phase consists of debt reduction."))

    copied = _verdict("In 1997, J. K. Rowling wrote a book.", call)
    swapped = _verdict("As S&P mentioned, the first phase consists of debt reduction.", call)

    assert (copied.state, copied.method) == (State.SUPPORTED, "offline:proof")
    assert swapped.method != "offline:proof"


def test_a_negation_reaches_each_verb_or_joins_and_a_proof_stops_at_the_next_conjunct() -> None:
    policy = Source(id="policy", text=(
        "We do not sell or rent your data. The west tower will extend 995 ft up to its roof and will be one of "
        "the tallest buildings in the city. Both Sam Witwer and Katee Sackhoff reprise their roles."))

    rented = _verdict("We rent your data.", policy)
    tower = _verdict("The west tower will extend 995 ft up to its roof.", policy)
    both = _verdict("Both Sam Witwer and Katee Sackhoff reprise their roles.", policy)

    assert rented.state is State.REFUTED and "not sell or rent your data" in rented.rationale
    # The "will" of "and will be one of the tallest" is the next conjunct's, not one the claim left out.
    assert (tower.state, tower.method) == (State.SUPPORTED, "offline:proof")
    # "both A and B reprise" says the predicate of each name: it follows both of them.
    assert (both.state, both.method) == (State.SUPPORTED, "offline:proof")


@pytest.mark.parametrize("answer", [
    "We do not rent your data to anyone.",  # the negation before "sell or" reaches "rent"
    "We do not sell your data to anyone.",  # an alternative left out after the word it is joined to
    "You can pay by bank transfer.",
    "You can pay by card.",  # a permission offers each option
    "Our team designs custom furniture.",
    "Our team builds custom furniture.",
])
def test_one_of_two_alternatives_denied_or_offered_and_one_of_two_conjuncts_is_proven(answer: str) -> None:
    terms = Source(id="terms", text=(
        "We do not sell or rent your data to anyone. You can pay by card or bank transfer. "
        "Our team designs and builds custom furniture."))

    verdict = _verdict(answer, terms)

    assert (verdict.state, verdict.method) == (State.SUPPORTED, "offline:proof")


def test_a_short_claim_that_denies_or_permits_is_proven_but_one_that_names_nothing_is_not() -> None:
    rules = Source(id="rules", text="Pets are not allowed. Guests can park.")

    pets = _verdict("Pets are not allowed.", rules)
    it = _verdict("It is not allowed.", rules)

    assert (pets.state, pets.method) == (State.SUPPORTED, "offline:proof")
    assert it.method != "offline:proof"


@pytest.mark.parametrize("answer", [
    "The parcel arrives on Tuesday.",
    "Refunds are credited to your card.",
    "The clinic opens at 9 am.",
])
def test_one_of_two_alternatives_a_source_hedges_between_is_not_proven(answer: str) -> None:
    # Stated plainly, "or" says one of the two holds, not which: the claim commits to one.
    faq = Source(id="faq", text=(
        "The parcel arrives on Monday or Tuesday. Refunds are sent by cheque or credited to your card. "
        "The clinic opens at 9 or 10 am."))

    verdict = _verdict(answer, faq)

    assert verdict.method != "offline:proof"
    assert verdict.release_score < 1.0


def test_a_date_with_its_own_year_is_not_the_claims_date_told_in_parts() -> None:
    # "August" is in the sentence and 1855 elsewhere in the source, but the sentence's August is 1857's.
    history = Source(id="history", text=(
        "In August 1857 he chaired a meeting of publicans. The bank was founded in 1855."))

    verdict = _verdict("In August 1855 he chaired a meeting of publicans.", history)

    assert verdict.state is not State.SUPPORTED and verdict.release_score == 0.0
    assert "August 1857" in " ".join(span.quote for span in verdict.evidence)


def test_a_short_claim_that_puts_one_name_for_the_sentences_is_never_supported() -> None:
    email = Source(id="email", text="My name is Mike, and I sell pool cleaners. Money is tight this year.")

    (name, _) = RULES.verify(extract_claims("My name is Money, and I sell pool cleaners."), [email])

    assert (name.state, name.method) == (State.INSUFFICIENT_EVIDENCE, "offline:altered")
    assert '"Money" where it says "Mike"' in name.rationale


def test_a_date_reordered_inside_a_range_of_dates_is_proven() -> None:
    # "1819 – 20 January 1900" runs from a date to a date: no year range "1819–20" to set out of order.
    ruskin = Source(id="ruskin", text="John Ruskin (8 February 1819 – 20 January 1900) was an English art critic.")

    kept = _verdict("John Ruskin (February 8, 1819 – 20 January 1900) was an English art critic.", ruskin)
    moved = _verdict("John Ruskin (February 8, 1819 – 21 January 1900) was an English art critic.", ruskin)

    assert (kept.state, kept.method) == (State.SUPPORTED, "offline:proof")
    assert moved.state is State.REFUTED


def test_a_clause_opened_by_until_moves_whole_past_its_pronoun() -> None:
    notice = Source(id="notice", text="Until we resolve the issues, subscribers need not log in to read articles.")

    verdict = _verdict("Subscribers need not log in to read articles until we resolve the issues.", notice)

    assert (verdict.state, verdict.method) == (State.SUPPORTED, "offline:proof")


def test_a_bare_answer_is_never_proven_by_naming_what_the_source_names() -> None:
    # Whether "Fabrikam" answers the question is not something the words of the source can show.
    (claim,) = extract_claims("Fabrikam", "Which company did Contoso acquire in 2015?")
    (verdict,) = RULES.verify([claim], [TRADE])

    assert verdict.method != "offline:proof"
    assert verdict.stratum == "bare"


def test_a_bare_answer_in_the_plural_is_not_proven_by_the_words_of_another_subject() -> None:
    # "dairy products" ends as a verb may; it names what the Hill farm sells, not what the question asks.
    farms = Source(id="farms", text="The Oakridge farm sells eggs. Its neighbour, the Hill farm, sells dairy products.")
    (claim,) = extract_claims("dairy products", "What does the Oakridge farm sell?")
    (verdict,) = RULES.verify([claim], [farms])

    assert verdict.method != "offline:proof"
    assert verdict.stratum == "bare"


def test_a_copied_answer_is_released_as_written_and_its_alignment_reaches_the_run_record() -> None:
    case = Case(external_id="copy", question="How much is the Pro plan?",
                answer="The Pro plan costs $20 per month. It includes 5 seats.", sources=[PLANS])

    record = check_case(case)

    assert record.terminal is Terminal.PERMIT
    assert record.final_answer == case.answer
    assert record.release_stratum == "proven"
    claims = record.candidates[-1].claims
    assert [claim.method for claim in claims] == ["offline:proof", "offline:proof"]
    assert all(claim.alignment for claim in claims)
    assert all(claim.stratum == "proven" for claim in claims)


def test_a_negation_in_the_next_sentence_does_not_prove_a_negated_claim() -> None:
    dogs = Source(id="film", text="And also, there are real dogs. Who doesn't want to see two real dogs kiss?")

    assert _verdict("And also, there are real dogs.", dogs).method == "offline:proof"
    assert _verdict("And also, there are not real dogs.", dogs).method != "offline:proof"


@pytest.mark.parametrize(("claim", "stating_less", "stating_some", "stating_all"), [
    ("The Pro plan costs $20 per month.", "The Pro plan is popular.", "The Pro plan costs $20.",
     "The Pro plan costs $20 per month."),
    ("Refunds are returned within 5 to 10 business days.", "Refunds are returned to the card.",
     "Refunds are returned within 10 business days.", "Refunds are returned within 5 to 10 business days."),
    ("The museum opens at 9 am on weekdays.", "The museum opens on weekdays.", "The museum opens at 9 am.",
     "The museum opens at 9 am on weekdays."),
])
def test_the_more_of_a_claim_its_evidence_states_the_higher_it_scores(
    claim: str, stating_less: str, stating_some: str, stating_all: str,
) -> None:
    # The same source but for one sentence, stating less, more, then all of the claim: with the default
    # scorer, as a user runs it. An exact statement tops the scale.
    filler = "Our plans renew every month. Support is included with every plan. "
    claims = extract_claims(claim)
    scores = [OfflineVerifier().verify(claims, [Source(id="s", text=filler + sentence)])[0].release_score
              for sentence in (stating_less, stating_some, stating_all)]

    assert scores[0] <= scores[1] <= scores[2] == 1.0


def test_a_speaker_is_not_proven_by_the_line_before_the_one_that_says_the_words() -> None:
    # Left out between "Project Lead" and "think" are the end of one line and the speaker of the next: the
    # "and" after that speaker does not make them a conjunct the claim may drop.
    source = Source(id="call", text=(
        "Project Lead: Yeah .\nFinance Officer: and I think the new form is easy to use for both teams ."))

    wrong = _verdict("Project Lead: and I think the new form is easy to use for both teams .", source)
    right = _verdict("Finance Officer: and I think the new form is easy to use for both teams .", source)

    assert wrong.method != "offline:proof" and wrong.state is not State.SUPPORTED
    assert right.method == "offline:proof" and right.release_score == 1.0


def test_a_predicate_split_from_its_sentence_is_proven_and_a_dropped_modifier_is_not() -> None:
    source = Source(id="facts", text=(
        "The museum opens at 9 am and closes at 5 pm. Aspirin reduces fever and, in rare cases, causes "
        "bleeding. Jo is the vice president of Acme."))

    opens, closes = RULES.verify(extract_claims("The museum opens at 9 am and closes at 5 pm."), [source])
    assert opens.method == closes.method == "offline:proof"
    # Leaving out a whole conjunct keeps what the rest says; leaving out a modifier does not.
    assert _verdict("Aspirin causes bleeding.", source).method != "offline:proof"
    assert _verdict("Jo is the president of Acme.", source).method != "offline:proof"


CAST = Source(id="cast", text=(
    "Predestination is a 2014 Australian science fiction thriller film directed by Michael and Peter Spierig. "
    "Rob Jenkins (born 21 May 1975) is an Australian actor with experience in film, television and theatre. "
    "But this is not a problem without a solution. As the old rules did not apply, the club admitted new "
    "members in May."
))


@pytest.mark.parametrize("answer", [
    "The club admitted new members in May.",  # a negation further back, of another clause, is left out
    "Rob Jenkins is an Australian actor with experience in film, television and theatre.",  # a part left out
])
def test_what_a_claim_leaves_out_before_the_words_it_restates_is_no_change(answer: str) -> None:
    verdict = _verdict(answer, CAST)

    assert verdict.method != "offline:altered"
    assert verdict.state is State.SUPPORTED


OFFER = Source(id="offer", text=(
    "Dear Dr. Rivera, this is our offer. For a limited period of only two weeks, we are providing our EHR "
    "platform and Telehealth "
    "services, packed with features tailored to a clinic like yours, for just $480/month! Reply to book a demo."
))


def test_a_sentence_copied_word_for_word_is_one_claim_and_released_as_written() -> None:
    # Cut at its "and", the second part would read "Telehealth services, packed with features ..., for just
    # $480/month!" and lose what the source says it with; copied, it is the source's sentence, and proven.
    answer = ("For a limited period of only two weeks, we are providing our EHR platform and Telehealth services, "
              "packed with features tailored to a clinic like yours, for just $480/month!")

    record = check_case(Case(question="What is the offer?", answer=answer, sources=[OFFER]))
    changed = extract_claims(answer.replace("two weeks", "three weeks"), sources=[OFFER.text])

    (claim,) = record.candidates[0].claims
    assert claim.text == answer and claim.method == "offline:proof" and claim.release_score == 1.0
    assert (record.terminal, record.final_answer) == (Terminal.PERMIT, answer)
    assert len(changed) == 2  # not a copy: read as the reader sees it, part by part


MEETING = Source(id="meeting", text=(
    "Project Lead: the budget is approved .\nFinance Officer: Mm-hmm .\nChair: Yeah , too bad .\nSecretary: too bad .\n"
    "Sales Agent: I will send you our price list on Friday ."
))


@pytest.mark.parametrize("answer", [
    "Project Lead: the budget is approved .",
    "Secretary: too bad .",  # another speaker says the same words, and this one says them too
    "Sales Agent: I will send you our price list on Friday .",
])
def test_a_line_copied_with_its_speaker_is_released(answer: str) -> None:
    record = check_case(Case(question="What was said?", answer=answer, sources=[MEETING]))

    assert record.candidates[0].claims[0].method != "offline:altered"
    assert (record.terminal, record.final_answer) == (Terminal.PERMIT, answer)


HONOURS = Source(id="honours", text=(
    "By 1952, Margaret Hale was leading the northern survey team, and had been given the Royal Geographical "
    "Medal. Two years later she joined the Arctic Rescue Service. I believe that our Northwind Cloud Backup "
    "Service can truly help your clinic in many ways. Our Quick Start guide is free."
))


FILM = Source(id="film", text=(
    "The remake was shot on a beach. And also, there are real horses. Who doesn't want to see two real "
    "horses race along the sand?"))


@pytest.mark.parametrize(("source", "answer", "says"), [
    # The claim opens with another name of the source in place of the sentence's.
    (CAST, "Peter Spierig (born 21 May 1975) is an Australian actor with experience in film and theatre.",
     '"Peter Spierig" where it says "Rob Jenkins"'),
    # The negation just before the words the claim restates is dropped.
    (CAST, "This is a problem without a solution.", '"no negation" where it says "not"'),
    # However short the line, whom it is said by is what it claims.
    (MEETING, "Finance Officer: the budget is approved .", '"Finance Officer" where it says "Project Lead"'),
    # A speaker named in words the diff otherwise skips ("Can", "I").
    (MEETING, "Can I: I will send you our price list on Friday .", '"Can I" where it says "Sales Agent"'),
    # A speaker of stop words only, which no proof aligns, is a speaker still.
    (MEETING, "Am I: the budget is approved .", '"Am I" where it says "Project Lead"'),
    # A name of three words for one of three: two of the claim's five words are the sentence's, but two of
    # its three once each name counts as one.
    (HONOURS, "By 1952, Margaret Hale had been given the Arctic Rescue Service.",
     '"Arctic Rescue Service" where it says "Royal Geographical Medal"'),
    # A name of two words for one of four.
    (HONOURS, "I believe that our Quick Start can truly help your clinic in many ways.",
     '"Quick Start" where it says "Northwind Cloud Backup Service"'),
    # "doesn't" negates "want", not "real horses": the claim restates the second sentence with "not" added.
    (FILM, "And also, there are not real horses.", '"not" where it says "nothing"'),
])
def test_a_claim_that_restates_a_sentence_with_a_name_a_speaker_or_a_negation_changed_is_never_supported(
        source: Source, answer: str, says: str) -> None:
    verdict = _verdict(answer, source)

    assert verdict.state is not State.SUPPORTED and verdict.release_score == 0.0
    assert verdict.method == "offline:altered" and says in verdict.rationale



CHART = Source(id="chart", text=(
    'The song was the lead single from the album "No Fences". It reached #1 on "Billboard\'s" Top Country '
    'Albums chart. The film stars Tom Hale, Ann Ruiz and Bo Park. Its music is by Stan Kray. We visited your '
    'business, Thomas Water Park, last week. Our Three-Step Cleaning Process is unique. The results go up on '
    'iTunes that afternoon. We are on iFifa too. I work at AquaSonic, where we sell pool maintenance kits.'))


@pytest.mark.parametrize(("answer", "says"), [
    # A name in a list put for the list's name there, the new one said elsewhere in the source.
    ("The film stars Tom Hale, Ann Ruiz and Stan Kray.", '"Stan Kray" where it says "Bo Park"'),
    # A capital after a closing quote is a name, not a line's first word.
    ('It reached #1 on "Billboard\'s" Fences chart.', '"Fences" where it says "Top Country Albums"'),
    # A capital inside a word names as one at its start: "iFifa" is put for "iTunes".
    ("The results go up on iFifa that afternoon.", '"iFifa" where it says "iTunes"'),
    # A capitalised word the sentence says in lower case elsewhere is a name put for its name there.
    ("I work at Maintenance, where we sell pool maintenance kits.", '"Maintenance" where it says "AquaSonic"'),
    # A number word in a name is the name's: "Three-Step" is no number put for "Thomas".
    ("We visited your business, Three-Step Cleaning Process, last week.", 'where it says "Thomas Water Park"'),
])
def test_a_name_swapped_in_a_list_after_a_quote_or_with_a_number_word_is_never_supported(
        answer: str, says: str) -> None:
    verdict = _verdict(answer, CHART)

    assert verdict.state is not State.SUPPORTED and verdict.release_score == 0.0
    assert verdict.method == "offline:altered" and says in verdict.rationale


STORY = Source(id="story", text=(
    "I had no map and I was cold and tired, but I knew I couldn't stop there. The museum was closed for repairs "
    "between 2014 and 2017, when the roof was replaced. Harbour Records, founded in 1961, released albums by "
    "artists including Ella Moss, Nina Hart, Stan Kray and Astrid Berg among others. The film is written and "
    "directed by Maria Lopez and stars an ensemble cast featuring Tom Hale, Ann Ruiz and Bo Park. Its first "
    "studio was called Blank Slate, and its score was recorded by Polar Sound."))


@pytest.mark.parametrize(("answer", "changed", "says"), [
    # Split from its sentence, the clause is too short to diff by its content words ("knew", "stop"); every
    # word of it, stop words too, is the sentence's but the "n't" it drops.
    ("I had no map and I was cold and tired, but I knew I couldn't stop there.",
     "I had no map and I was cold and tired, but I knew I could stop there.", '"no negation" where it says "n\'t"'),
    # A range made empty says the sentence's 2017 twice, once where it says 2014.
    ("The museum was closed for repairs between 2014 and 2017, when the roof was replaced.",
     "The museum was closed for repairs between 2017 and 2017, when the roof was replaced.",
     '"2017" where it says "2014"'),
    # The claim ends with a name in place of the sentence's, which goes on past it.
    ("The film is written and directed by Maria Lopez.", "The film is written and directed by Polar Sound.",
     '"Polar Sound" where it says "Maria Lopez"'),
    # A name put for the last of a list is a swap, said in the same words around it (`name-swap`).
    ("Harbour Records, founded in 1961, released albums by artists including Ella Moss, Nina Hart, Stan Kray "
     "and Astrid Berg among others.",
     "Harbour Records, founded in 1961, released albums by artists including Ella Moss, Nina Hart, Stan Kray and "
     "Blank Slate among others.", '"Blank Slate" where the source, in the same words, says "Astrid Berg"'),
])
def test_a_split_clause_a_range_made_empty_or_a_name_at_either_end_changed_is_held_back(
        answer: str, changed: str, says: str) -> None:
    copied = check_case(Case(question="What happened?", answer=answer, sources=[STORY]))
    record = check_case(Case(question="What happened?", answer=changed, sources=[STORY]))

    assert (copied.terminal, copied.final_answer) == (Terminal.PERMIT, answer)
    assert (record.terminal, record.final_answer) != (Terminal.PERMIT, changed)
    held = [claim for claim in record.candidates[0].claims if says in claim.rationale]
    assert len(held) == 1 and held[0].state is not State.SUPPORTED and held[0].release_score == 0.0
    assert held[0].method in ("offline:altered", "offline:name-swap")


LEASE = Source(id="lease", text=(
    "The landlord pays for water and the tenant pays for electricity. The company was founded in Berlin and "
    "moved to Paris in 2010. Acme has offices in London, Paris and Berlin. Smith, the CEO of Acme, resigned "
    "in May. The premium for our Standard plan would be around $120. Marie was born in Warsaw and later worked "
    "in Paris as a physicist."
))


@pytest.mark.parametrize("answer", [
    "The tenant pays for water.",          # a phrase moved out of the other clause of the sentence
    "The landlord pays for electricity.",  # a clause's subject with the other clause's object
    "The company was founded in Paris.",   # the name of the joined clause put in the first clause's place
])
def test_words_taken_from_two_clauses_of_a_sentence_are_never_supported(answer: str) -> None:
    record = check_case(Case(question="Who pays for what?", answer=answer, sources=[LEASE]))

    assert record.candidates[0].claims[0].state is not State.SUPPORTED
    assert (record.terminal, record.final_answer) != (Terminal.PERMIT, answer)


@pytest.mark.parametrize("answer", [
    "The tenant pays for electricity.",
    "The landlord pays for water.",
    "Acme has offices in Berlin.",          # one name of a list
    "Smith resigned in May.",               # an aside left out
    "The premium would be around $120.",    # a modifier left out
    "Marie worked in Paris as a physicist.",  # a whole conjunct left out, with its adverb
])
def test_one_clause_a_name_of_a_list_or_a_sentence_without_its_aside_is_supported(answer: str) -> None:
    verdict = _verdict(answer, LEASE)

    assert verdict.state is State.SUPPORTED
    assert verdict.method != "offline:altered"
