//! `py` and `px` (Mininet's `do_py`/`do_px`). With a hook installed
//! ([`Cli::set_py`], the Python bindings' `CLI(net)`), the line is real
//! Python in the script's namespace. Without one (the `lighthouse run`
//! CLI) `py` evaluates the expressions course scripts type at the prompt:
//! `h1.IP()`, `h1.MAC()`, `h1.cmd('ifconfig')`, `h1.intfList()`,
//! `h1.name`, `net.hosts`, `net.switches`, `net.get('h1')`, `net['h1']`,
//! `net.keys()`; anything else is refused naming what works.

use super::Cli;
use crate::net::{Network, NetworkError};

/// What a `py`/`px` line evaluates to, as Mininet prints it.
#[derive(Clone, Debug, PartialEq)]
enum Value {
    Net,
    Node(String),
    Intf(String),
    Str(String),
    None,
    List(Vec<Value>),
}

/// Python's text of a value (`repr`), Mininet's for nodes and interfaces.
fn repr(net: &mut Network, v: &Value) -> String {
    match v {
        Value::Net => format!("<lighthouse.mininet.net.Mininet {}>", net.prefix),
        Value::Node(n) => {
            let d = net.dump();
            match d.nodes.into_iter().find(|d| d.name == *n) {
                Some(d) => {
                    let ifs: Vec<(&str, Option<String>)> = d
                        .intfs
                        .iter()
                        .map(|(i, a)| (i.as_str(), a.clone()))
                        .collect();
                    crate::text::format::dump_line(d.class, &d.name, &ifs, d.pid)
                }
                None => format!("<Node {n}>"),
            }
        }
        Value::Intf(i) => format!("<Intf {i}>"),
        Value::Str(s) => str_repr(s),
        Value::None => "None".into(),
        Value::List(l) => {
            let items: Vec<String> = l.iter().map(|x| repr(net, x)).collect();
            format!("[{}]", items.join(", "))
        }
    }
}

/// Python's `repr` of a str: single quotes unless it holds one and no
/// double quote.
fn str_repr(s: &str) -> String {
    let q = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::from(q);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if c == q => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out.push(q);
    out
}

/// What works without Python, for the refusal.
const SUPPORTED: &str = "<node>.IP(), <node>.MAC(), <node>.cmd('...'), <node>.intfList(), <node>.intfNames(), <node>.name, net.hosts, net.switches, net.get('h1'), net['h1'], net.keys()";

fn refuse(what: &str) -> String {
    format!(
        "{what}: this CLI evaluates only {SUPPORTED}; for any Python, run the script with `from lighthouse.mininet.cli import CLI` (docs/mininet.md#python-api), or use `<node> <cmd>` here"
    )
}

/// A tiny tokenizer-parser for `a.b(args)[k]` chains.
struct Parser<'s> {
    s: &'s [u8],
    at: usize,
}

impl Parser<'_> {
    fn ws(&mut self) {
        while self.s.get(self.at).is_some_and(u8::is_ascii_whitespace) {
            self.at += 1;
        }
    }

    fn eat(&mut self, c: u8) -> bool {
        self.ws();
        if self.s.get(self.at) == Some(&c) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn ident(&mut self) -> Option<String> {
        self.ws();
        let start = self.at;
        while self
            .s
            .get(self.at)
            .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
        {
            self.at += 1;
        }
        (self.at > start && !self.s[start].is_ascii_digit())
            .then(|| String::from_utf8_lossy(&self.s[start..self.at]).into_owned())
    }

    /// A Python string literal in single or double quotes (`\` escapes
    /// the next character).
    fn string(&mut self) -> Result<String, String> {
        self.ws();
        let q = match self.s.get(self.at) {
            Some(&q @ (b'\'' | b'"')) => q,
            _ => return Err("expected a string argument in quotes".into()),
        };
        self.at += 1;
        let mut out = Vec::new();
        while let Some(&c) = self.s.get(self.at) {
            self.at += 1;
            match c {
                b'\\' => {
                    if let Some(&n) = self.s.get(self.at) {
                        out.push(match n {
                            b'n' => b'\n',
                            b't' => b'\t',
                            x => x,
                        });
                        self.at += 1;
                    }
                }
                c if c == q => return Ok(String::from_utf8_lossy(&out).into_owned()),
                c => out.push(c),
            }
        }
        Err("EOL while scanning string literal".into())
    }

    /// `( "a", 'b' )`: string arguments after the opening parenthesis.
    fn args(&mut self) -> Result<Vec<String>, String> {
        let mut v = Vec::new();
        if self.eat(b')') {
            return Ok(v);
        }
        loop {
            v.push(self.string()?);
            if self.eat(b')') {
                return Ok(v);
            }
            if !self.eat(b',') {
                return Err("invalid syntax: expected , or )".into());
            }
        }
    }

    fn done(&mut self) -> bool {
        self.ws();
        self.at >= self.s.len()
    }
}

fn eval(net: &mut Network, line: &str) -> Result<Value, String> {
    let mut p = Parser {
        s: line.as_bytes(),
        at: 0,
    };
    let first = p.ident().ok_or_else(|| refuse(line))?;
    p.ws();
    if !matches!(p.s.get(p.at), None | Some(b'.' | b'[')) {
        return Err(refuse(line));
    }
    let mut v = if first == "net" {
        Value::Net
    } else if net.is_node(&first) {
        Value::Node(first)
    } else {
        return Err(format!("name '{first}' is not defined"));
    };
    loop {
        if p.done() {
            return Ok(v);
        }
        if p.eat(b'[') {
            let k = p.string()?;
            if !p.eat(b']') {
                return Err("invalid syntax: expected ]".into());
            }
            v = match v {
                Value::Net if net.is_node(&k) => Value::Node(k),
                Value::Net => return Err(format!("KeyError: '{k}'")),
                _ => return Err(refuse(line)),
            };
            continue;
        }
        if !p.eat(b'.') {
            return Err(refuse(line));
        }
        let attr = p.ident().ok_or_else(|| "invalid syntax".to_string())?;
        let args = if p.eat(b'(') { Some(p.args()?) } else { None };
        v = attribute(net, v, &attr, args, line)?;
    }
}

fn attribute(
    net: &mut Network,
    v: Value,
    attr: &str,
    args: Option<Vec<String>>,
    line: &str,
) -> Result<Value, String> {
    let err = |e: NetworkError| e.to_string();
    let opt = |s: Option<String>| s.map_or(Value::None, Value::Str);
    let nodes = |names: Vec<String>| Value::List(names.into_iter().map(Value::Node).collect());
    Ok(match (v, attr, args.as_deref()) {
        (Value::Net, "hosts", None) => nodes(net.nodes().hosts),
        (Value::Net, "switches", None) => nodes(net.switch_names()),
        (Value::Net, "keys", Some([])) => {
            Value::List(net.node_names().into_iter().map(Value::Str).collect())
        }
        (Value::Net, "get", Some([one])) if net.is_node(one) => Value::Node(one.clone()),
        (Value::Net, "get", Some([one])) => return Err(format!("KeyError: '{one}'")),
        (Value::Net, "get", Some(many)) if !many.is_empty() => {
            if let Some(bad) = many.iter().find(|n| !net.is_node(n)) {
                return Err(format!("KeyError: '{bad}'"));
            }
            nodes(many.to_vec())
        }
        (Value::Node(n), "name", None) => Value::Str(n),
        (Value::Node(n), "IP", Some([])) => opt(net.node_ip(&n).map_err(err)?),
        (Value::Node(n), "MAC", Some([])) => opt(net.node_mac(&n).map_err(err)?),
        (Value::Node(n), "cmd", Some([c])) => Value::Str(net.node_cmd_output(&n, c).map_err(err)?),
        (Value::Node(n), "intfList", Some([])) => Value::List(
            net.intf_list(&n)
                .into_iter()
                .map(|(i, _)| Value::Intf(i))
                .collect(),
        ),
        (Value::Node(n), "intfNames", Some([])) => Value::List(
            net.intf_list(&n)
                .into_iter()
                .map(|(i, _)| Value::Str(i))
                .collect(),
        ),
        (Value::Str(s), "strip", Some([])) => Value::Str(s.trim().to_string()),
        _ => return Err(refuse(line)),
    })
}

impl<'a> Cli<'a> {
    /// Installs the `py`/`px` evaluator: `(network, line, is_px)` to the
    /// text to print or an error message. The Python bindings' `CLI(net)`
    /// installs one that runs the line as Python in the script's
    /// namespace; it gets the network because the script's node objects
    /// call back into it while the CLI holds it.
    pub fn set_py(&mut self, hook: PyHook<'a>) {
        self.py = Some(hook);
    }

    /// `py LINE` / `px LINE`.
    pub(super) fn py(&mut self, verb: &str, line: &str) {
        if line.is_empty() {
            self.say(&format!(
                "*** Usage: {verb} <python {}>",
                if verb == "py" {
                    "expression"
                } else {
                    "statement"
                }
            ));
            return;
        }
        if let Some(hook) = self.py.as_mut() {
            match hook(self.net, line, verb == "px") {
                Ok(s) if s.is_empty() => {}
                Ok(s) => self.net.say_part(&s),
                Err(e) => self.say(&e),
            }
            return;
        }
        if verb == "px" {
            self.say(&format!(
                "*** px: this CLI has no Python interpreter to run statements; `py` evaluates {SUPPORTED}; for any Python run the script with `from lighthouse.mininet.cli import CLI` (docs/mininet.md#python-api)"
            ));
            return;
        }
        if self.sandbox {
            return;
        }
        match eval(self.net, line) {
            // Mininet: a str is printed as is, anything else as its repr.
            Ok(Value::None) => {}
            Ok(Value::Str(s)) => self.say(&s),
            Ok(v) => {
                let s = repr(self.net, &v);
                self.say(&s);
            }
            Err(e) => self.say(&e),
        }
    }
}

/// See [`Cli::set_py`].
pub type PyHook<'a> = Box<dyn FnMut(&mut Network, &str, bool) -> Result<String, String> + 'a>;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Plan;

    fn net() -> Network {
        Network::offline(Plan::new(2, 2), "lh0000")
    }

    #[test]
    fn expressions_of_course_scripts_evaluate() {
        let mut n = net();
        assert_eq!(eval(&mut n, "h1.IP()"), Ok(Value::Str("10.0.0.1".into())));
        assert_eq!(
            eval(&mut n, "net['h3'].IP( )"),
            Ok(Value::Str("10.0.0.3".into()))
        );
        assert_eq!(
            eval(&mut n, "net.get('h2').name"),
            Ok(Value::Str("h2".into()))
        );
        assert_eq!(eval(&mut n, "s1.IP()"), Ok(Value::None));
        let hosts = eval(&mut n, "net.hosts").unwrap();
        assert_eq!(
            hosts,
            Value::List(
                ["h1", "h2", "h3", "h4"]
                    .map(|h| Value::Node(h.into()))
                    .to_vec()
            )
        );
        assert_eq!(
            eval(&mut n, "h1.intfNames()"),
            Ok(Value::List(vec![Value::Str("h1-eth0".into())]))
        );
        assert_eq!(repr(&mut n, &Value::Str("it's".into())), "\"it's\"");
        assert_eq!(repr(&mut n, &Value::Str("a\nb".into())), "'a\\nb'");
    }

    #[test]
    fn anything_else_is_refused_naming_what_works() {
        let mut n = net();
        assert_eq!(
            eval(&mut n, "h9.IP()"),
            Err("name 'h9' is not defined".into())
        );
        assert_eq!(eval(&mut n, "net['h9']"), Err("KeyError: 'h9'".into()));
        for bad in [
            "1+1",
            "h1.IP",
            "h1.setIP('1.2.3.4')",
            "import os",
            "h1.cmd('ls",
        ] {
            let e = eval(&mut n, bad).unwrap_err();
            assert!(
                e.contains("<node>.cmd(") || e.contains("string literal") || e.contains("syntax"),
                "{bad}: {e}"
            );
        }
        assert!(eval(&mut n, "h1.IP").unwrap_err().contains("<node>.IP()"));
    }
}
