//! An error printed whole: [`error_chain`].

use alloc::string::{String, ToString};

/// `e` and each of its causes ([`source`](std::error::Error::source)),
/// `: `-separated, a cause whose text the previous already ends with
/// printed once: what a command prints for an error, so that the reason
/// at the bottom of the chain is never lost.
///
/// ```
/// use std::fmt;
///
/// #[derive(Debug)]
/// struct Write(std::io::Error);
/// impl fmt::Display for Write {
///     fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
///         f.write_str("writing table `events_v2`")
///     }
/// }
/// impl std::error::Error for Write {
///     fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
///         Some(&self.0)
///     }
/// }
///
/// let e = Write(std::io::Error::other("disk full"));
/// assert_eq!(rowkey_core::error_chain(&e), "writing table `events_v2`: disk full");
/// ```
pub fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let more = s.to_string();
        if !text.ends_with(&more) {
            text.push_str(": ");
            text.push_str(&more);
        }
        source = s.source();
    }
    text
}
