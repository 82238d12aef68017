//! rcl's lexer for remap rules, parameter overrides and log levels (`rcl/lexer.c`), and its
//! two-lexeme lookahead (`rcl/lexer_lookahead.c`).
//!
//! The state machine is rcl's table, state for state, so a rule splits into the same lexemes as
//! in rcl: a token is `[A-Za-z_]` then letters, digits and single underscores (`a__b` is the two
//! tokens `a_` and `_b`), `rostopic://` and `rosservice://` are one lexeme each, `__node`,
//! `__name` and `__ns` are keywords, and anything else is a one-byte [`Lexeme::None`].

/// A kind of lexeme (`rcl_lexeme_t`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lexeme {
    /// No valid lexeme starts here.
    None,
    /// The end of the text.
    Eof,
    /// `~/`
    TildeSlash,
    /// `rosservice://`
    UrlService,
    /// `rostopic://`
    UrlTopic,
    /// `:`
    Colon,
    /// `__node` or `__name`
    Node,
    /// `__ns`
    Ns,
    /// `:=`
    Separator,
    /// A backreference `\1` to `\9`.
    Backreference(u8),
    /// A name between slashes.
    Token,
    /// `/`
    ForwardSlash,
    /// `*`
    WildOne,
    /// `**`
    WildMulti,
    /// `.`
    Dot,
}

impl Lexeme {
    /// How an error message names it.
    pub(crate) fn describe(self) -> &'static str {
        match self {
            Lexeme::None => "a character that starts no lexeme",
            Lexeme::Eof => "the end",
            Lexeme::TildeSlash => "'~/'",
            Lexeme::UrlService => "'rosservice://'",
            Lexeme::UrlTopic => "'rostopic://'",
            Lexeme::Colon => "':'",
            Lexeme::Node => "'__node'",
            Lexeme::Ns => "'__ns'",
            Lexeme::Separator => "':='",
            Lexeme::Backreference(_) => "a backreference",
            Lexeme::Token => "a name",
            Lexeme::ForwardSlash => "'/'",
            Lexeme::WildOne => "'*'",
            Lexeme::WildMulti => "'**'",
            Lexeme::Dot => "'.'",
        }
    }
}

// States S0..S31 are non-terminal; from FIRST_TERMINAL on, a state is a lexeme found.
const FIRST_TERMINAL: u8 = 32;
const T_TILDE_SLASH: u8 = 32;
const T_URL_SERVICE: u8 = 33;
const T_URL_TOPIC: u8 = 34;
const T_COLON: u8 = 35;
const T_NODE: u8 = 36;
const T_NS: u8 = 37;
const T_SEPARATOR: u8 = 38;
const T_BR1: u8 = 39;
const T_BR9: u8 = 47;
const T_TOKEN: u8 = 48;
const T_FORWARD_SLASH: u8 = 49;
const T_WILD_ONE: u8 = 50;
const T_WILD_MULTI: u8 = 51;
const T_NONE: u8 = 53;
const T_DOT: u8 = 54;

/// A non-terminal state: its transitions `(to, first byte, last byte)`, and where to go, with
/// which movement, when none matches. Movement 0 moves on one byte, 1 stays, 1 + N goes back N.
struct State {
    else_state: u8,
    else_movement: u8,
    transitions: &'static [(u8, u8, u8)],
}

const fn state(else_state: u8, else_movement: u8, transitions: &'static [(u8, u8, u8)]) -> State {
    State {
        else_state,
        else_movement,
        transitions,
    }
}

/// rcl's `g_states`, in its order.
const STATES: [State; 32] = [
    // S0
    state(
        T_NONE,
        0,
        &[
            (T_FORWARD_SLASH, b'/', b'/'),
            (T_DOT, b'.', b'.'),
            (1, b'\\', b'\\'),
            (2, b'~', b'~'),
            (3, b'_', b'_'),
            (9, b'a', b'q'),
            (9, b's', b'z'),
            (9, b'A', b'Z'),
            (11, b'r', b'r'),
            (30, b'*', b'*'),
            (31, b':', b':'),
        ],
    ),
    // S1: after '\'
    state(
        T_NONE,
        0,
        &[
            (T_BR1, b'1', b'1'),
            (40, b'2', b'2'),
            (41, b'3', b'3'),
            (42, b'4', b'4'),
            (43, b'5', b'5'),
            (44, b'6', b'6'),
            (45, b'7', b'7'),
            (46, b'8', b'8'),
            (T_BR9, b'9', b'9'),
        ],
    ),
    // S2: after '~'
    state(T_NONE, 0, &[(T_TILDE_SLASH, b'/', b'/')]),
    // S3: after '_'
    state(10, 1, &[(4, b'_', b'_')]),
    // S4: after '__'
    state(T_NONE, 0, &[(5, b'n', b'n')]),
    // S5: after '__n'
    state(
        T_NONE,
        0,
        &[(T_NS, b's', b's'), (6, b'o', b'o'), (7, b'a', b'a')],
    ),
    // S6: after '__no'
    state(T_NONE, 0, &[(8, b'd', b'd')]),
    // S7: after '__na'
    state(T_NONE, 0, &[(8, b'm', b'm')]),
    // S8: after '__nod' or '__nam'
    state(T_NONE, 0, &[(T_NODE, b'e', b'e')]),
    // S9: in a token
    state(
        T_TOKEN,
        1,
        &[
            (9, b'a', b'z'),
            (9, b'A', b'Z'),
            (9, b'0', b'9'),
            (10, b'_', b'_'),
        ],
    ),
    // S10: in a token, after '_'
    state(
        T_TOKEN,
        1,
        &[(9, b'a', b'z'), (9, b'A', b'Z'), (9, b'0', b'9')],
    ),
    // S11..S20: 'rostopic://'
    state(9, 1, &[(12, b'o', b'o')]),
    state(9, 1, &[(13, b's', b's')]),
    state(9, 1, &[(14, b't', b't'), (21, b's', b's')]),
    state(9, 1, &[(15, b'o', b'o')]),
    state(9, 1, &[(16, b'p', b'p')]),
    state(9, 1, &[(17, b'i', b'i')]),
    state(9, 1, &[(18, b'c', b'c')]),
    state(9, 1, &[(19, b':', b':')]),
    state(9, 2, &[(20, b'/', b'/')]),
    state(9, 3, &[(T_URL_TOPIC, b'/', b'/')]),
    // S21..S29: 'rosservice://'
    state(9, 1, &[(22, b'e', b'e')]),
    state(9, 1, &[(23, b'r', b'r')]),
    state(9, 1, &[(24, b'v', b'v')]),
    state(9, 1, &[(25, b'i', b'i')]),
    state(9, 1, &[(26, b'c', b'c')]),
    state(9, 1, &[(27, b'e', b'e')]),
    state(9, 1, &[(28, b':', b':')]),
    state(9, 2, &[(29, b'/', b'/')]),
    state(9, 3, &[(T_URL_SERVICE, b'/', b'/')]),
    // S30: after '*'
    state(T_WILD_ONE, 1, &[(T_WILD_MULTI, b'*', b'*')]),
    // S31: after ':'
    state(T_COLON, 1, &[(T_SEPARATOR, b'=', b'=')]),
];

/// The lexeme `text` starts with, and its length in bytes (`rcl_lexer_analyze`). A
/// [`Lexeme::None`] covers the bytes up to and including the one that made it impossible.
pub(crate) fn analyze(text: &[u8]) -> (Lexeme, usize) {
    if text.is_empty() {
        return (Lexeme::Eof, 0);
    }
    let mut length = 0usize;
    let mut next = 0u8;
    loop {
        let current = &STATES[usize::from(next)];
        // The end of the text matches no transition, as rcl's terminating NUL.
        let byte = text.get(length).copied();
        let found = byte.and_then(|b| {
            current
                .transitions
                .iter()
                .find(|&&(_, first, last)| first <= b && b <= last)
                .map(|&(to, _, _)| to)
        });
        let movement = match found {
            Some(to) => {
                next = to;
                0
            }
            None => {
                next = current.else_state;
                current.else_movement
            }
        };
        if movement == 0 {
            if byte.is_some() {
                length += 1;
            }
        } else {
            length = length.saturating_sub(usize::from(movement - 1));
        }
        if next >= FIRST_TERMINAL {
            break;
        }
    }
    let lexeme = match next {
        T_TILDE_SLASH => Lexeme::TildeSlash,
        T_URL_SERVICE => Lexeme::UrlService,
        T_URL_TOPIC => Lexeme::UrlTopic,
        T_COLON => Lexeme::Colon,
        T_NODE => Lexeme::Node,
        T_NS => Lexeme::Ns,
        T_SEPARATOR => Lexeme::Separator,
        T_BR1..=T_BR9 => Lexeme::Backreference(next - T_BR1 + 1),
        T_TOKEN => Lexeme::Token,
        T_FORWARD_SLASH => Lexeme::ForwardSlash,
        T_WILD_ONE => Lexeme::WildOne,
        T_WILD_MULTI => Lexeme::WildMulti,
        T_DOT => Lexeme::Dot,
        _ => Lexeme::None,
    };
    (lexeme, length)
}

/// A lexeme other than the one expected: what was found (described for a message), and at which
/// byte.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct WrongLexeme {
    pub(crate) expected: Lexeme,
    pub(crate) found: String,
    pub(crate) at: usize,
}

/// A cursor over the lexemes of a text that can look two ahead (`rcl_lexer_lookahead2_t`).
pub(crate) struct Lookahead<'a> {
    text: &'a str,
    position: usize,
    // The next lexemes from `position` once looked at: kind and end.
    first: Option<(Lexeme, usize)>,
    second: Option<(Lexeme, usize)>,
}

impl<'a> Lookahead<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        Lookahead {
            text,
            position: 0,
            first: None,
            second: None,
        }
    }

    /// Where the next lexeme starts.
    pub(crate) fn position(&self) -> usize {
        self.position
    }

    /// The text from `start` to where the next lexeme starts. Positions are only ever at the
    /// start, the end, or next to an ASCII lexeme, so the slice is on character boundaries; if
    /// it were not, the bytes would be replaced rather than the program stopped.
    pub(crate) fn text_from(&self, start: usize) -> String {
        String::from_utf8_lossy(&self.text.as_bytes()[start.min(self.position)..self.position])
            .into_owned()
    }

    /// The text after the next lexeme's start, to the end.
    pub(crate) fn rest(&self) -> String {
        String::from_utf8_lossy(&self.text.as_bytes()[self.position..]).into_owned()
    }

    fn lex_at(&self, at: usize) -> (Lexeme, usize) {
        let (lexeme, length) = analyze(&self.text.as_bytes()[at..]);
        (lexeme, at + length)
    }

    /// The next lexeme, without moving past it.
    pub(crate) fn peek(&mut self) -> Lexeme {
        let first = match self.first {
            Some(first) => first,
            None => *self.first.insert(self.lex_at(self.position)),
        };
        first.0
    }

    /// The next two lexemes, without moving past them. After a [`Lexeme::None`] or
    /// [`Lexeme::Eof`] nothing more is lexed: both are that lexeme, as in rcl.
    pub(crate) fn peek2(&mut self) -> (Lexeme, Lexeme) {
        let first = self.peek();
        if matches!(first, Lexeme::None | Lexeme::Eof) {
            return (first, first);
        }
        let end = self.first.map_or(self.position, |(_, end)| end);
        let second = match self.second {
            Some(second) => second,
            None => *self.second.insert(self.lex_at(end)),
        };
        (first, second.0)
    }

    /// The next lexeme as a message names it: the characters themselves when they start no
    /// lexeme (`'__f'`, `' '`).
    pub(crate) fn describe_next(&mut self) -> String {
        let lexeme = self.peek();
        if lexeme != Lexeme::None {
            return lexeme.describe().to_owned();
        }
        let end = self.first.map_or(self.position, |(_, end)| end);
        let text = self
            .text
            .get(self.position..end)
            .map(str::to_owned)
            .or_else(|| {
                // A lexeme that stops inside a character: name the whole character.
                let rest = String::from_utf8_lossy(&self.text.as_bytes()[self.position..]);
                rest.chars().next().map(String::from)
            })
            .unwrap_or_default();
        format!("'{text}'")
    }

    /// Moves past the next lexeme and returns its text (nothing at the end).
    pub(crate) fn accept(&mut self) -> &'a str {
        self.peek();
        let Some((lexeme, end)) = self.first else {
            return "";
        };
        if lexeme == Lexeme::Eof {
            return "";
        }
        let start = self.position;
        self.position = end;
        self.first = self.second.take();
        self.text.get(start..end).unwrap_or("")
    }

    /// Moves past the next lexeme if it is `expected`, returning its text.
    pub(crate) fn expect(&mut self, expected: Lexeme) -> Result<&'a str, WrongLexeme> {
        if self.peek() != expected {
            return Err(WrongLexeme {
                expected,
                found: self.describe_next(),
                at: self.position,
            });
        }
        Ok(self.accept())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lex(text: &str) -> (Lexeme, &str) {
        let (lexeme, length) = analyze(text.as_bytes());
        (lexeme, &text[..length])
    }

    // Vectors from rcl/test/rcl/test_lexer.cpp (Jazzy).

    #[test]
    fn tokens_end_at_the_input_or_a_non_token_character() {
        assert_eq!(lex("foo"), (Lexeme::Token, "foo"));
        assert_eq!(lex("foo:"), (Lexeme::Token, "foo"));
        assert_eq!(lex("foo_"), (Lexeme::Token, "foo_"));
        assert_eq!(lex("foo_:"), (Lexeme::Token, "foo_"));
    }

    #[test]
    fn a_token_starts_with_any_letter_or_an_underscore() {
        for c in ('a'..='z').chain('A'..='Z').chain(['_']) {
            let text = c.to_string();
            assert_eq!(lex(&text), (Lexeme::Token, text.as_str()), "{text}");
        }
    }

    #[test]
    fn characters_next_to_the_allowed_ones_start_no_lexeme() {
        for text in ["@", "[", "`", "{"] {
            assert_eq!(lex(text), (Lexeme::None, text));
        }
    }

    #[test]
    fn a_token_cannot_start_with_a_digit() {
        for c in '0'..='9' {
            let text = c.to_string();
            assert_eq!(lex(&text), (Lexeme::None, text.as_str()));
        }
    }

    #[test]
    fn tokens_may_have_single_underscores_but_not_double_ones() {
        for text in ["_abcd", "abcd_", "ab_cd", "_a_b_c_d_"] {
            assert_eq!(lex(text), (Lexeme::Token, text));
        }
        assert_eq!(lex("_a__bcd"), (Lexeme::Token, "_a_"));
        assert_eq!(lex("a__bcd"), (Lexeme::Token, "a_"));
        assert_eq!(lex("A__bcd"), (Lexeme::Token, "A_"));
        assert_eq!(lex("__a"), (Lexeme::None, "__a"));
        assert_eq!(lex("__A"), (Lexeme::None, "__A"));
    }

    #[test]
    fn tokens_may_contain_and_end_with_digits() {
        for d in '0'..='9' {
            for text in [
                format!("_{d}_"),
                format!("a{d}a"),
                format!("_{d}"),
                format!("a{d}"),
            ] {
                assert_eq!(lex(&text), (Lexeme::Token, text.as_str()));
            }
        }
    }

    #[test]
    fn words_close_to_a_url_scheme_are_tokens() {
        for text in [
            "ro",
            "ros",
            "ross",
            "rosse",
            "rosser",
            "rosserv",
            "rosservi",
            "rosservic",
            "rosservice",
            "rost",
            "rosto",
            "rostop",
            "rostopi",
            "rostopic",
        ] {
            assert_eq!(lex(text), (Lexeme::Token, text));
        }
        for text in [
            "rosservice:",
            "rosservice:=",
            "rosservice:/",
            "rosservice:/a",
        ] {
            assert_eq!(lex(text), (Lexeme::Token, "rosservice"));
        }
        for text in ["rostopic:", "rostopic:=", "rostopic:/", "rostopic:/a"] {
            assert_eq!(lex(text), (Lexeme::Token, "rostopic"));
        }
    }

    #[test]
    fn tokens_may_be_upper_case() {
        for text in ["ABC", "_DEF", "_GHI_"] {
            assert_eq!(lex(text), (Lexeme::Token, text));
        }
    }

    #[test]
    fn url_schemes_are_one_lexeme() {
        assert_eq!(lex("rosservice://"), (Lexeme::UrlService, "rosservice://"));
        assert_eq!(lex("rostopic://"), (Lexeme::UrlTopic, "rostopic://"));
        assert_eq!(
            lex("rosservice://abcd"),
            (Lexeme::UrlService, "rosservice://")
        );
        assert_eq!(lex("rosservice:///"), (Lexeme::UrlService, "rosservice://"));
        assert_eq!(lex("rostopic://abcd"), (Lexeme::UrlTopic, "rostopic://"));
        assert_eq!(lex("rostopic:///"), (Lexeme::UrlTopic, "rostopic://"));
    }

    #[test]
    fn backreferences_are_a_backslash_and_a_digit_from_one() {
        for n in 1..=9u8 {
            let text = format!("\\{n}");
            assert_eq!(lex(&text), (Lexeme::Backreference(n), text.as_str()));
            assert_eq!(
                lex(&format!("{text}a")),
                (Lexeme::Backreference(n), text.as_str())
            );
        }
        for text in ["\\0", "\\a", "\\Z", "\\_"] {
            assert_eq!(lex(text), (Lexeme::None, text));
        }
    }

    #[test]
    fn slashes_wildcards_colons_and_separators_are_lexemes() {
        assert_eq!(lex("/"), (Lexeme::ForwardSlash, "/"));
        assert_eq!(lex("//"), (Lexeme::ForwardSlash, "/"));
        assert_eq!(lex("/_"), (Lexeme::ForwardSlash, "/"));
        assert_eq!(lex("*"), (Lexeme::WildOne, "*"));
        assert_eq!(lex("*/"), (Lexeme::WildOne, "*"));
        assert_eq!(lex("**"), (Lexeme::WildMulti, "**"));
        assert_eq!(lex("**/"), (Lexeme::WildMulti, "**"));
        assert_eq!(lex(":"), (Lexeme::Colon, ":"));
        assert_eq!(lex(":r"), (Lexeme::Colon, ":"));
        assert_eq!(lex(":="), (Lexeme::Separator, ":="));
        assert_eq!(lex(":=0"), (Lexeme::Separator, ":="));
    }

    #[test]
    fn ns_name_and_node_are_keywords_and_their_prefixes_are_not() {
        assert_eq!(lex("__ns"), (Lexeme::Ns, "__ns"));
        assert_eq!(lex("__nsssss"), (Lexeme::Ns, "__ns"));
        assert_eq!(lex("__name"), (Lexeme::Node, "__name"));
        assert_eq!(lex("__namessss"), (Lexeme::Node, "__name"));
        assert_eq!(lex("__node"), (Lexeme::Node, "__node"));
        assert_eq!(lex("__nodessss"), (Lexeme::Node, "__node"));
        for text in [
            "__", "__n", "__n!", "__na", "__naa", "__nam", "__nama", "__ne", "__no", "__noa",
            "__nod", "__noda",
        ] {
            assert_eq!(lex(text), (Lexeme::None, text));
        }
    }

    #[test]
    fn tilde_slash_is_a_lexeme_and_a_lone_tilde_is_not() {
        assert_eq!(lex("~/"), (Lexeme::TildeSlash, "~/"));
        assert_eq!(lex("~//"), (Lexeme::TildeSlash, "~/"));
        assert_eq!(lex("~"), (Lexeme::None, "~"));
        assert_eq!(lex("~!"), (Lexeme::None, "~!"));
    }

    #[test]
    fn empty_text_is_the_end() {
        assert_eq!(lex(""), (Lexeme::Eof, ""));
    }

    // Vectors from rcl/test/rcl/test_lexer_lookahead.cpp (Jazzy).

    fn lexemes(text: &str) -> Vec<(Lexeme, &str)> {
        let mut lookahead = Lookahead::new(text);
        let mut out = Vec::new();
        loop {
            let lexeme = lookahead.peek();
            out.push((lexeme, lookahead.accept()));
            if lexeme == Lexeme::Eof {
                return out;
            }
        }
    }

    #[test]
    fn peek_does_not_move_and_peek2_sees_the_second_lexeme() {
        let mut lookahead = Lookahead::new("foobar");
        assert_eq!(lookahead.peek(), Lexeme::Token);
        assert_eq!(lookahead.peek(), Lexeme::Token);
        let mut lookahead = Lookahead::new("foobar/");
        assert_eq!(lookahead.peek2(), (Lexeme::Token, Lexeme::ForwardSlash));
        assert_eq!(lookahead.peek2(), (Lexeme::Token, Lexeme::ForwardSlash));
        assert_eq!(Lookahead::new("~foo").peek2(), (Lexeme::None, Lexeme::None));
        assert_eq!(Lookahead::new("~").peek2(), (Lexeme::None, Lexeme::None));
        assert_eq!(Lookahead::new("").peek2(), (Lexeme::Eof, Lexeme::Eof));
    }

    #[test]
    fn accept_moves_past_a_lexeme_and_stays_at_the_end() {
        assert_eq!(
            lexemes("foobar/"),
            [
                (Lexeme::Token, "foobar"),
                (Lexeme::ForwardSlash, "/"),
                (Lexeme::Eof, "")
            ]
        );
        let mut lookahead = Lookahead::new("");
        assert_eq!(lookahead.accept(), "");
        assert_eq!(lookahead.peek(), Lexeme::Eof);
    }

    #[test]
    fn expect_takes_the_expected_lexeme_and_refuses_another() {
        let mut lookahead = Lookahead::new("node_name:__node:=new_1");
        assert_eq!(lookahead.expect(Lexeme::Token), Ok("node_name"));
        assert_eq!(
            lookahead.expect(Lexeme::ForwardSlash),
            Err(WrongLexeme {
                expected: Lexeme::ForwardSlash,
                found: "':'".to_owned(),
                at: 9
            })
        );
    }

    #[test]
    fn a_long_string_splits_into_every_kind_of_lexeme() {
        use Lexeme::*;
        assert_eq!(
            lexemes(":\\1rostopic://\\2rosservice://~/\\8:=**:*foobar"),
            [
                (Colon, ":"),
                (Backreference(1), "\\1"),
                (UrlTopic, "rostopic://"),
                (Backreference(2), "\\2"),
                (UrlService, "rosservice://"),
                (TildeSlash, "~/"),
                (Backreference(8), "\\8"),
                (Separator, ":="),
                (WildMulti, "**"),
                (Colon, ":"),
                (WildOne, "*"),
                (Token, "foobar"),
                (Eof, ""),
            ]
        );
    }

    #[test]
    fn remap_rules_split_into_their_lexemes() {
        use Lexeme::*;
        let slash = (ForwardSlash, "/");
        assert_eq!(
            lexemes("foo:=bar"),
            [(Token, "foo"), (Separator, ":="), (Token, "bar"), (Eof, "")]
        );
        assert_eq!(
            lexemes("/foo/bar:=fiz/buzz"),
            [
                slash,
                (Token, "foo"),
                slash,
                (Token, "bar"),
                (Separator, ":="),
                (Token, "fiz"),
                slash,
                (Token, "buzz"),
                (Eof, "")
            ]
        );
        assert_eq!(
            lexemes("nodename:~/foo:=foo"),
            [
                (Token, "nodename"),
                (Colon, ":"),
                (TildeSlash, "~/"),
                (Token, "foo"),
                (Separator, ":="),
                (Token, "foo"),
                (Eof, "")
            ]
        );
        assert_eq!(
            lexemes("/foo/**:=/fizz/\\1"),
            [
                slash,
                (Token, "foo"),
                slash,
                (WildMulti, "**"),
                (Separator, ":="),
                slash,
                (Token, "fizz"),
                slash,
                (Backreference(1), "\\1"),
                (Eof, "")
            ]
        );
        assert_eq!(
            lexemes("/foo/bar/*:=/bar/foo/\\1"),
            [
                slash,
                (Token, "foo"),
                slash,
                (Token, "bar"),
                slash,
                (WildOne, "*"),
                (Separator, ":="),
                slash,
                (Token, "bar"),
                slash,
                (Token, "foo"),
                slash,
                (Backreference(1), "\\1"),
                (Eof, "")
            ]
        );
        assert_eq!(
            lexemes("**/foo:=\\1/bar"),
            [
                (WildMulti, "**"),
                slash,
                (Token, "foo"),
                (Separator, ":="),
                (Backreference(1), "\\1"),
                slash,
                (Token, "bar"),
                (Eof, "")
            ]
        );
        assert_eq!(
            lexemes("__ns:=/new/namespace"),
            [
                (Ns, "__ns"),
                (Separator, ":="),
                slash,
                (Token, "new"),
                slash,
                (Token, "namespace"),
                (Eof, "")
            ]
        );
        assert_eq!(
            lexemes("__node:=left_camera_driver"),
            [
                (Node, "__node"),
                (Separator, ":="),
                (Token, "left_camera_driver"),
                (Eof, "")
            ]
        );
        assert_eq!(
            lexemes("rostopic://foo/bar:=bar/foo"),
            [
                (UrlTopic, "rostopic://"),
                (Token, "foo"),
                slash,
                (Token, "bar"),
                (Separator, ":="),
                (Token, "bar"),
                slash,
                (Token, "foo"),
                (Eof, "")
            ]
        );
        assert_eq!(
            lexemes("rosservice:///foo/bar:=/bar/foo"),
            [
                (UrlService, "rosservice://"),
                slash,
                (Token, "foo"),
                slash,
                (Token, "bar"),
                (Separator, ":="),
                slash,
                (Token, "bar"),
                slash,
                (Token, "foo"),
                (Eof, "")
            ]
        );
    }
}
