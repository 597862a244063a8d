//! What several commands read from their arguments: a layout given as
//! text or `@FILE`, and `field=value` pairs. Errors are the usage
//! messages, naming the argument.

use rowkey_core::error_chain as chain;
use rowkey_core::DynLayout;

/// The layout of argument `arg` (`--layout`, `--from`...): its text, its
/// JSON (as `T::LAYOUT.to_json()` writes it), or `@FILE` holding either.
pub fn layout(arg: &str, spec: &str) -> Result<DynLayout, String> {
    let (text, from) = match spec.strip_prefix('@') {
        Some(path) => (
            std::fs::read_to_string(path)
                .map_err(|e| format!("{arg} {spec}: cannot read {path}: {}", chain(&e)))?,
            format!("{arg} {spec}"),
        ),
        None => (spec.to_owned(), arg.to_owned()),
    };
    let text = text.trim();
    let layout = if text.starts_with('{') {
        DynLayout::from_json(text)
    } else {
        DynLayout::parse(text)
    };
    layout.map_err(|e| format!("{from}: {}", chain(&e)))
}

/// `field=value`, split.
pub fn pair(arg: &str) -> Result<(&str, &str), String> {
    arg.split_once('=')
        .ok_or_else(|| format!("argument `{arg}`: expected FIELD=VALUE"))
}
