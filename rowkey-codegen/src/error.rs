//! Why code cannot be generated.

/// Why code cannot be generated for a layout.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CodegenError {
    /// The layout has something the language's generator does not write.
    #[error("{language}: {}{what} not supported yet", field.as_ref().map(|f| format!("field `{f}`: ")).unwrap_or_default())]
    Unsupported {
        /// The language.
        language: &'static str,
        /// The field, when one field is the cause.
        field: Option<String>,
        /// What is not supported.
        what: String,
    },
    /// The type or package name is not an identifier of the language.
    #[error("{language}: `{name}` is not a valid {what} name")]
    Name {
        /// The language.
        language: &'static str,
        /// The name given.
        name: String,
        /// A type or a package.
        what: &'static str,
    },
    /// Two fields the language would write alike (`user_id` and `userId`
    /// are both Java's `userId`; `class` is renamed `class_`, another
    /// field's name).
    #[error("{language}: the fields `{first}` and `{second}` are both written `{ident}`")]
    Collision {
        /// The language.
        language: &'static str,
        /// The first field.
        first: String,
        /// The second field.
        second: String,
        /// How both are written.
        ident: String,
    },
    /// A companion option for another language's client (`--hbase` is
    /// Java's, `--bigtable` Go's).
    #[error("{language}: --{option} is an option of {for_language} only")]
    Option {
        /// The language.
        language: &'static str,
        /// The option given.
        option: &'static str,
        /// The language it is for.
        for_language: &'static str,
    },
}
