//! The fast path agrees with the standard's parser wherever it accepts a page.
//!
//! Each test compares the main-content subtree that [`fast`] builds with the one html5ever
//! ([`spec`]) builds, node by node: element names, attributes in order, decoded text, and the
//! lines where start tags end. On the real 13.3.0 page the fast path must accept and agree; on each
//! construct where `tl` differs from the standard it must refuse; on generated pages mixing
//! both, every page it accepts must agree, and it must accept and refuse a fair share.

use std::cell::Cell;
use std::fmt::Write;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

use super::dom::{self, El, Node, Page};
use super::{fast, spec};

/// The main-content subtree as one line a node.
fn outline(page: &Page<'_>) -> String {
    let mut out = String::new();
    if let Some(main) = dom::main_content(page) {
        write_node(main.node(), 0, &mut out);
    }
    out
}

fn write_node(node: ego_tree::NodeRef<'_, Node<'_>>, depth: usize, out: &mut String) {
    let pad = "  ".repeat(depth);
    match node.value() {
        Node::Element(e) => {
            let attrs: String = e.attrs.iter().map(|(k, v)| format!(" {k}={v:?}")).collect();
            let _ = writeln!(out, "{pad}<{}{attrs}> line {}", e.name, e.line);
            for c in node.children() {
                write_node(c, depth + 1, out);
            }
        }
        Node::Text(t) => {
            let _ = writeln!(out, "{pad}{t:?}");
        }
        Node::Document | Node::Other => {
            let _ = writeln!(out, "{pad}(other)");
        }
    }
}

/// The first line where `a` and `b` differ, with both.
fn first_difference(a: &str, b: &str) -> Option<String> {
    let (la, lb): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    (0..la.len().max(lb.len()))
        .find(|&i| la.get(i) != lb.get(i))
        .map(|i| {
            format!(
                "node {i}:\n  fast: {:?}\n  spec: {:?}",
                la.get(i),
                lb.get(i)
            )
        })
}

/// The outlines of both parsers, or `None` when the fast path refuses the page.
fn both(page: &str) -> Option<(String, String)> {
    let fast = fast::parse(page).ok()?;
    let (spec, _) = spec::parse(page);
    Some((outline(&fast), outline(&spec)))
}

#[test]
fn the_real_page_takes_the_fast_path_and_agrees_node_by_node() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../docs-src/nvidia-cuda-bindings-13.3.0/runtime.html"
    );
    let text = std::fs::read_to_string(path).expect("13.3.0 page present");
    let fast = match fast::parse(&text) {
        Ok(page) => page,
        Err(why) => panic!(
            "fast path refused the page: line {}: {}",
            why.line, why.reason
        ),
    };
    let (spec, _) = spec::parse(&text);
    let (a, b) = (outline(&fast), outline(&spec));
    if let Some(d) = first_difference(&a, &b) {
        panic!("the parsers disagree at {d}");
    }
    let nodes = a.lines().count();
    let elements = dom::main_content(&fast).map_or(0, |m| m.descendant_elements().count());
    println!("compared {nodes} nodes of the article ({elements} elements) with html5ever's");
    assert!(elements > 25_000, "{elements}");
}

#[test]
fn agrees_on_entities_line_endings_comments_and_pre() {
    let page = concat!(
        "<!DOCTYPE html>\r\n<html><head><title>a &amp; b</title>\r\n",
        "<noscript><style>.x{}</style></noscript><script>if (a && b) {}</script></head>\r\n",
        "<body><article class=\"a\" data-x='1 &amp; 2' hidden>",
        "<p>&lt;tag&gt; &#8212; &#x2014; &notin; &noti; &amp &ampx &#128; &#0; &bogus; & x</p>\r\n",
        "<pre>\nfirst\r\nsecond\rthird</pre><pre>\n\nkept</pre>",
        "<!-- c --><!-- a -- b --><!--- d --><p title=\"a&ampb &amp=\">x</p>",
        "<UL><Li>one</Li></UL><br /><img src=\"x\"/><br>",
        "<dl><dt>t</dt><dd><dl><dt>u</dt></dl></dd></dl>",
        "</article></body></html>\n",
    );
    let Some((a, b)) = both(page) else {
        panic!("refused: {:?}", fast::parse(page).err());
    };
    assert_eq!(first_difference(&a, &b), None);
    assert!(a.contains("\"<tag> \u{2014} \u{2014} \u{2209}"), "{a}");
}

#[test]
fn refuses_every_construct_tl_reads_otherwise() {
    let cases = [
        ("unclosed p before a block", "<p>a<div>b</div>"),
        ("stray end tag", "<div>a</span></div>"),
        ("misnested", "<b><i>x</b></i>"),
        ("br/", "<p>a<br/>b</p>"),
        ("less-than in text", "<p>a < b</p>"),
        ("less-than digit", "<p>a <3 b</p>"),
        ("space after <", "<p>a < div>b</div></p>"),
        ("non-void self-closing", "<div/>x"),
        ("unquoted attribute", "<div class=x>y</div>"),
        (
            "no space between attributes",
            "<div class=\"a\"id=\"b\">y</div>",
        ),
        ("tab before =", "<div class\t=\"a\">y</div>"),
        ("end tag with space", "<div>y</div >"),
        ("end tag of a void element", "<p>a</br>b</p>"),
        ("li in li", "<ul><li>a<li>b</li></li></ul>"),
        ("dd in dt", "<dl><dt>a<dd>b</dd></dt></dl>"),
        ("heading in heading", "<h2>a<h3>b</h3></h2>"),
        ("a in a", "<a href=\"#\">a<a href=\"#\">b</a></a>"),
        ("table", "<table><tr><td>x</td></tr></table>"),
        ("svg", "<svg><path d=\"M0\"/></svg>"),
        ("markup in script", "<script>a<b</script>"),
        ("abrupt comment", "<!---->x<!-- y -->"),
        ("comment ended by --!>", "<!-- a --!> b -->"),
        ("unterminated comment", "<!-- a"),
        ("textarea", "<textarea>\nx</textarea>"),
        ("nested body", "<body>x</body>"),
        ("NUL", "<p>a\0b</p>"),
    ];
    for (what, body) in cases {
        let page = format!(
            "<!DOCTYPE html><html><head></head><body><article>{body}</article></body></html>"
        );
        assert!(fast::parse(&page).is_err(), "{what}: accepted {page}");
        // The standard's parser still reads it.
        assert!(dom::main_content(&spec::parse(&page).0).is_some(), "{what}");
    }
    // Content the standard moves into an implied `body`.
    for page in [
        "just some notes",
        "<p>a</p><html><body><article>x</article></body></html>",
        "<html><body><p>x</p></body></html><p>after</p>",
        "<html><head></head><p>a</p><body><article>x</article></body></html>",
        "<html><head><title>t</title></head></html>",
    ] {
        assert!(fast::parse(page).is_err(), "accepted {page}");
    }
    // The last `</article>` closes nothing.
    assert!(fast::parse("<html><body><p>x</p><!-- </article>").is_err());
}

#[test]
fn a_page_cut_inside_the_article_is_read_whole_and_agrees() {
    // No `</article>` to cut at: the whole page is read, and the unclosed elements run to
    // the end of the text in both parsers.
    let page = "<html><body><article><p>x</p><dl><dt>y";
    let (a, b) = both(page).expect("accepted");
    assert_eq!(first_difference(&a, &b), None);
    assert!(a.contains("<dt> line 1"), "{a}");
}

#[test]
fn refusals_name_the_line() {
    let page =
        "<!DOCTYPE html>\n<html><body><article>\n<p>ok</p>\n<p>a <3</p>\n</article></body></html>";
    let why = fast::parse(page).expect_err("refused");
    assert_eq!(why.line, 4, "{why:?}");
    assert!(why.reason.contains("<3"), "{why:?}");
}

/// A generated node: mostly what Sphinx writes, now and then what tl reads differently.
fn node() -> impl Strategy<Value = String> {
    let clean_markup = prop::sample::select(vec![
        "<br>",
        "<br />",
        "<hr>",
        "<img src=\"i\">",
        "<!-- c -->",
        "<!-- a -- b -->",
        "<wbr>",
    ]);
    let hostile_markup = prop::sample::select(vec![
        "<br/>",
        "</p>",
        "</span>",
        "a < b",
        "<3",
        "<!---->",
        "<!-- x --!>",
        "<hr/>x",
        "</br>",
        "<!DOCTYPE html>",
        "<?xml x?>",
        "<![CDATA[x]]>",
    ]);
    let leaf = prop_oneof![
        30 => "[a-z ]{0,12}",
        4 => Just("\n".to_string()),
        2 => Just("\r\n".to_string()),
        1 => Just("\r".to_string()),
        6 => prop::sample::select(vec![
            "&amp;", "&lt;", "&#8212;", "&#x2014;", "&notin;", "&noti", "&amp", "&#128;",
            "&bogus;", "& x", "&#0;", "&#xD800;",
        ])
        .prop_map(str::to_string),
        4 => clean_markup.prop_map(str::to_string),
        1 => hostile_markup.prop_map(str::to_string),
    ];
    let attribute = prop_oneof![
        20 => prop::sample::select(vec![
            " class=\"x y\"",
            " id=\"a&amp;b\"",
            " data-x='v'",
            " title=\"a<b>c &ampx &amp= &lt\"",
            " hidden",
            " CLASS=\"U\"",
            " start=\"3\"",
            "\n role=\"main\"",
        ]),
        1 => prop::sample::select(vec![" class=bare", " class=\"a\"id=\"b\"", "\tclass = \"t\""]),
    ];
    let close = prop_oneof![
        40 => Just("close"),
        1 => Just("open"),
        1 => Just("wrong"),
        1 => Just("spaced"),
        1 => Just("self"),
    ];
    leaf.prop_recursive(4, 40, 4, move |inner| {
        (
            prop::sample::select(vec![
                "div",
                "div",
                "p",
                "span",
                "span",
                "em",
                "code",
                "pre",
                "dl",
                "dt",
                "dd",
                "ul",
                "li",
                "section",
                "h2",
                "a",
                "strong",
                "b",
                "blockquote",
                "noscript",
                "button",
                "x-el",
                "DIV",
                "Span",
                "table",
                "script",
                "title",
                "ol",
                "h3",
                "i",
                "address",
                "article",
                "main",
                "form",
                "style",
                "head",
                "body",
                "hr",
                "img",
                "br",
                "nav",
            ]),
            prop::collection::vec(attribute.clone(), 0..3),
            prop::collection::vec(inner, 0..4),
            close.clone(),
        )
            .prop_map(|(name, attrs, children, close)| {
                let attrs: String = attrs.concat();
                let inner = children.concat();
                match close {
                    "close" => format!("<{name}{attrs}>{inner}</{name}>"),
                    "open" => format!("<{name}{attrs}>{inner}"),
                    "wrong" => format!("<{name}{attrs}>{inner}</i>"),
                    "spaced" => format!("<{name}{attrs}>{inner}</{name} >"),
                    _ => format!("<{name}{attrs}/>{inner}"),
                }
            })
    })
}

/// A generated page: chrome, then the article (or a `role="main"` div) holding nodes.
fn page() -> impl Strategy<Value = String> {
    (prop::collection::vec(node(), 1..6), any::<bool>(), node()).prop_map(
        |(body, article, chrome)| {
            let (open, close) = if article {
                ("<article class=\"bd-article\">", "</article>")
            } else {
                ("<div role=\"main\">", "</div>")
            };
            format!(
                "<!DOCTYPE html>\n<html><head><title>t</title></head>\n<body><nav>{chrome}</nav>\n{open}{}{close}\n<footer>{chrome}</footer></body></html>\n",
                body.concat()
            )
        },
    )
}

#[test]
fn on_generated_pages_every_accepted_page_agrees() {
    let accepted = Cell::new(0u32);
    let refused = Cell::new(0u32);
    // `PROPTEST_CASES` raises the count for a longer search.
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1500);
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    let result = runner.run(&page(), |page| {
        match both(&page) {
            Some((a, b)) => {
                accepted.set(accepted.get() + 1);
                if let Some(d) = first_difference(&a, &b) {
                    return Err(TestCaseError::fail(format!("{d}\npage: {page}")));
                }
            }
            None => refused.set(refused.get() + 1),
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    let (a, r) = (accepted.get(), refused.get());
    println!("generated pages: {a} accepted and equal to html5ever's tree, {r} refused");
    // Neither side is vacuous: the generator reaches both outcomes often.
    assert!(a >= 100 && r >= 100, "accepted {a}, refused {r}");
}

#[test]
fn spec_and_fast_pages_find_the_same_main_content() {
    let page = "<html><body><div role=\"main\"><p>x</p></div></body></html>";
    let fast = fast::parse(page).expect("accepted");
    let main = dom::main_content(&fast).map(El::name);
    assert_eq!(main, Some("div"));
    assert_eq!(both(page).map(|(a, b)| a == b), Some(true));
}
