//! What tests of generated code need (rowkey's own binding testers, and a
//! user's tests of their generated keys): the one library generated Java
//! uses, from Maven Central.

use std::io;
use std::path::PathBuf;
use std::process::Command;

/// The version of OpenHFT's `zero-allocation-hashing` generated Java's
/// XXH3 salt is written for (`LongHashFunction.xx3()`).
pub const JAVA_XXH3_VERSION: &str = "0.16";

/// The jar of `net.openhft:zero-allocation-hashing` in the local Maven
/// repository (`~/.m2`), fetched with `mvn dependency:get` when it is
/// missing: the classpath entry generated Java needs for an XXH3 salt.
pub fn java_xxh3_jar() -> io::Result<PathBuf> {
    let home = std::env::var_os("HOME").ok_or_else(|| io::Error::other("HOME is not set"))?;
    let v = JAVA_XXH3_VERSION;
    let jar = PathBuf::from(home).join(format!(
        ".m2/repository/net/openhft/zero-allocation-hashing/{v}/zero-allocation-hashing-{v}.jar"
    ));
    if !jar.exists() {
        let out = Command::new("mvn")
            .args(["-q", "-B", "dependency:get"])
            .arg(format!(
                "-Dartifact=net.openhft:zero-allocation-hashing:{v}"
            ))
            .output()
            .map_err(|e| io::Error::new(e.kind(), format!("cannot run mvn (Maven): {e}")))?;
        if !out.status.success() {
            return Err(io::Error::other(format!(
                "mvn dependency:get net.openhft:zero-allocation-hashing:{v} failed: {}",
                String::from_utf8_lossy(&out.stdout)
            )));
        }
    }
    Ok(jar)
}
