"""A carriage return inside a CSV value.

pandas' own ``to_csv`` writes a text's carriage return (``\\r``) unquoted: dslabs'
``trump_tweets`` written so holds three tweets with one. pandas' and pyarrow's readers end a line
at it too, so the tweet's record was cut in two and ``init`` refused the file ("row 618 holds 4
field(s) where its lines hold 9 ... a line cut short"). A file whose lines end with a line feed
alone is now read with the line feed alone ending its lines: the record is whole, its carriage
return in its value. A file whose lines end with a carriage return and a line feed (Windows),
or with a carriage return alone, is read as before.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest
import yaml
from click.testing import CliRunner
from real_surveys import rdataset

from microanon.apps.cli import main
from microanon.apps.io import read_table
from microanon.core.csv_lines import values_hold_carriage_returns
from microanon.core.errors import InputError


@pytest.fixture(scope="module")
def tweets(tmp_path_factory):
    """dslabs' ``trump_tweets`` (20,761 tweets) as pandas writes it, and the frame."""
    frame = rdataset("dslabs", "trump_tweets")
    path = tmp_path_factory.mktemp("tweets") / "tweets.csv"
    frame.to_csv(path, index=False)
    return path, frame


def test_a_tweet_s_carriage_return_stays_in_its_value(tweets):
    """Every record read whole, as R holds them; the three texts with a carriage return keep
    it (pandas' default read had made 20,765 rows of them)."""
    path, frame = tweets
    assert b"\r\n" not in path.read_bytes() and b"\r" in path.read_bytes()
    assert values_hold_carriage_returns(path)
    read = read_table(path)
    assert len(read) == len(frame) == 20_761
    assert len(pd.read_csv(path)) == 20_765  # (what a line break at each \r makes of it)
    with_return = read["text"].str.contains("\r", regex=False)
    assert with_return.sum() == frame["text"].str.contains("\r", regex=False).sum() == 3
    assert read["text"].tolist() == frame["text"].tolist()


def test_init_and_anonymize_read_the_tweets_whole(tweets, tmp_path):
    """init proposes a config for the file (it had refused it) and anonymize publishes from
    every record: 20,761 rows in; the months every record of which was suppressed are named
    in ascending order (init's date hierarchy lists the tweets' dates newest first)."""
    path, _ = tweets
    config = tmp_path / "config.yaml"
    init = CliRunner().invoke(main, ["init", str(path), "--out", str(config), "--yes"])
    assert init.exit_code == 0, init.output
    doc = yaml.safe_load(config.read_text("utf-8"))
    assert doc["schema"]["text"] == {"role": "identifier"}
    args = ["anonymize", str(path), "--config", str(config), "--out", str(tmp_path / "out")]
    run = CliRunner().invoke(main, [*args, "--json"])
    assert run.exit_code == 0, run.output
    answer = json.loads(run.stdout)
    counts = answer["rows"]
    assert (counts["in_file"], counts["left_out"]) == (20_761, {})
    line = next(c["done"] for c in answer["columns"] if c["column"] == "created_at")
    emptied = line.split("every record of ")[1].split(" was suppressed")[0]
    months = [part.split(" (")[0] for part in emptied.replace(" and ", ", ").split(", ")]
    months = [m for m in months if m[:1].isdigit() and "more" not in m]
    assert months == sorted(months) and len(months) >= 2


@pytest.mark.parametrize("end", [b"\r\n", b"\r"])
def test_windows_and_classic_mac_line_ends_are_read_as_before(tmp_path, end):
    """Lines ending with a carriage return and a line feed, or with a carriage return alone:
    line ends, not values' characters."""
    path = tmp_path / "lines.csv"
    path.write_bytes(end.join([b"a,b", b"1,x", b"2,y", b""]))
    assert not values_hold_carriage_returns(path)
    read = read_table(path)
    assert read["b"].tolist() == ["x", "y"] and read["a"].tolist() == [1, 2]


def test_a_line_cut_short_is_still_refused_beside_a_carriage_return(tmp_path):
    """The check for a line cut short counts the fields as the file is read: a carriage
    return inside a value is no line's end there either, and the short line is named by its
    row (the header row 1; row 3 had it split the value)."""
    path = tmp_path / "short.csv"
    path.write_bytes(b'a,b,c\n1,"q",one\r two\n2,"r",three\n3,"s"\n4,"t",four\n')
    assert values_hold_carriage_returns(path)
    with pytest.raises(InputError, match="row 4 holds 2 field"):
        read_table(path)
    path.write_bytes(b'a,b,c\n1,"q",one\r two\n2,"r",three\n3,"s",x\n')
    assert read_table(path)["c"].tolist() == ["one\r two", "three", "x"]


def test_one_read_of_the_bytes_serves_both_checks_of_a_quoted_file(tmp_path):
    """A quoted file whose values hold carriage returns and whose last column misses a value:
    its bytes, read once with the carriage returns blanked, serve the check for a line cut
    short (pyarrow's parse, which reads them to the end) and then the check for whole numbers
    written among missing answers, which reads them again from their start."""
    path = tmp_path / "quoted.csv"
    path.write_bytes(b'id,code,text,last\n1,3,"a b",x\n2,,"c\rd",\n3,4,e\rf,y\n')
    read = read_table(path)
    assert read["text"].tolist() == ["a b", "c\rd", "e\rf"]
    assert str(read["code"].dtype) == "Int64" and read["code"].tolist()[::2] == [3, 4]


def test_only_a_file_of_line_feeds_with_a_carriage_return_is_read_so(tmp_path):
    """No carriage return, or lines of both line ends, a compressed or an empty file, or one in
    UTF-16: read as before."""
    cases = {
        "plain.csv": (b"a\n1\n", "utf-8", False),
        "inside.csv": (b"a\n1\r2\n", "utf-8", True),
        "mixed.csv": (b"a\r\n1\r2\n", "utf-8", False),
        "empty.csv": (b"", "utf-8", False),
        "utf16.csv": ("a\n1\r2\n".encode("utf-16"), "utf-16", False),
    }
    for name, (data, encoding, expected) in cases.items():
        (tmp_path / name).write_bytes(data)
        assert values_hold_carriage_returns(tmp_path / name, encoding) is expected, name
