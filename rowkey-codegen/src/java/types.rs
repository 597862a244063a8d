//! What every Java file of a package names alike: types, identifiers,
//! literals and the scans' names.

pub use crate::names::camel;
use crate::plan::{FieldPlan, KeyPlan, Scalar, ScanPlan};

/// The Java type of a plain value: `long` for `u32` and `u64` (the bits),
/// `int` for `u8` and `u16`.
pub fn plain_type(f: &FieldPlan) -> &'static str {
    if f.time.is_some() {
        return "java.time.Instant";
    }
    match f.scalar {
        Scalar::Uuid => "java.util.UUID",
        Scalar::Opaque { .. } => "byte[]",
        Scalar::Ulid => "byte[]",
        Scalar::Ipv4 => "java.net.Inet4Address",
        Scalar::Ipv6 => "java.net.Inet6Address",
        Scalar::Ip => "java.net.InetAddress",
        Scalar::Int { bits: 128, .. } => "java.math.BigInteger",
        Scalar::Bool => "boolean",
        Scalar::Str => "String",
        Scalar::Bytes => "byte[]",
        Scalar::Char => "int",
        Scalar::Float { bits: 32 } => "float",
        Scalar::Float { .. } => "double",
        Scalar::Int {
            bits: 8,
            signed: true,
        } => "byte",
        Scalar::Int {
            bits: 16,
            signed: true,
        } => "short",
        Scalar::Int {
            bits: 32,
            signed: true,
        } => "int",
        Scalar::Int {
            bits: 8 | 16,
            signed: false,
        } => "int",
        Scalar::Int { .. } => "long",
    }
}

/// The boxed type.
pub fn boxed_type(f: &FieldPlan) -> &'static str {
    match plain_type(f) {
        "boolean" => "Boolean",
        "float" => "Float",
        "double" => "Double",
        "byte" => "Byte",
        "short" => "Short",
        "int" => "Integer",
        "long" => "Long",
        other => other,
    }
}

/// The component's type.
pub fn component_type(f: &FieldPlan) -> String {
    let plain = match &f.key_enum {
        Some(e) => e.name.as_str(),
        None => plain_type(f),
    };
    let boxed = match &f.key_enum {
        Some(e) => e.name.as_str(),
        None => boxed_type(f),
    };
    if f.option {
        format!("Optional<{boxed}>")
    } else {
        plain.to_owned()
    }
}

/// A scan's method name: `scanAll`, `scanByUserId`, `rangeByUserIdTsMillis`.
pub fn scan_method(plan: &KeyPlan, scan: &ScanPlan) -> String {
    if scan.lead == 0 && !scan.range {
        return "scanAll".to_owned();
    }
    let fields: String = scan
        .fields(plan)
        .iter()
        .map(|f| upper(&camel(&f.name)))
        .collect();
    format!("{}By{fields}", if scan.range { "range" } else { "scan" })
}

/// A scan's parameters, declared (`long userId, ...`) and as arguments
/// (`userId, ...`).
pub fn scan_params(plan: &KeyPlan, scan: &ScanPlan) -> (String, String) {
    let lead = &plan.fields[..scan.lead];
    let mut decl: Vec<String> = lead
        .iter()
        .map(|f| format!("{} {}", component_type(f), f.ident))
        .collect();
    let mut args: Vec<String> = lead.iter().map(|f| f.ident.clone()).collect();
    if scan.range {
        let next = &plan.fields[scan.lead];
        let b = match &next.key_enum {
            Some(e) => e.name.as_str(),
            None => boxed_type(next),
        };
        decl.push(format!(
            "{b} start, {b} stop, boolean startInclusive, boolean stopInclusive"
        ));
        args.push("start, stop, startInclusive, stopInclusive".to_owned());
    }
    (decl.join(", "), args.join(", "))
}

pub(super) fn upper(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
        .unwrap_or_default()
}

/// `new byte[] {...}`.
pub(super) fn java_bytes(b: &[u8]) -> String {
    let items: Vec<String> = b.iter().map(|x| format!("(byte) 0x{x:02x}")).collect();
    format!("{{{}}}", items.join(", "))
}
