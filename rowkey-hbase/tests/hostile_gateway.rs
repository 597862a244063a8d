//! A gateway that is broken or hostile, played by a local socket: replies
//! whose sizes lie (a list of -1 rows, a value of 2^31 - 1 bytes, a frame
//! of 2 GiB) and an HTTP answer whose body never ends. Each call ends
//! with an error naming the fault; nothing panics, and what the client
//! reads or allocates stays within its reply budget (256 MiB), where the
//! thrift crate's own readers panicked on the negative size and took
//! whatever the sizes said.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use rowkey_hbase::{Client, Transport};

/// The two tests one at a time: the peak memory one measures is the
/// process's.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// The peak resident memory of this process, in KiB.
fn peak_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

/// Reads one strict binary Thrift request's header (its name and sequence
/// number) and drains the rest of what the client sent.
fn read_request(s: &mut TcpStream, framed: bool) -> Option<(String, i32)> {
    let mut n = [0u8; 4];
    if framed {
        s.read_exact(&mut n).ok()?;
    }
    s.read_exact(&mut n).ok()?; // version and type
    s.read_exact(&mut n).ok()?;
    let mut name = vec![0u8; u32::from_be_bytes(n) as usize];
    s.read_exact(&mut name).ok()?;
    s.read_exact(&mut n).ok()?;
    let seq = i32::from_be_bytes(n);
    s.set_read_timeout(Some(Duration::from_millis(100))).ok()?;
    let mut rest = [0u8; 4096];
    while matches!(s.read(&mut rest), Ok(k) if k > 0) {}
    s.set_read_timeout(None).ok()?;
    Some((String::from_utf8(name).ok()?, seq))
}

/// A reply to `name`: the message header, then `body` (the result
/// struct's fields).
fn reply(name: &str, seq: i32, body: &[u8]) -> Vec<u8> {
    let mut out = 0x8001_0002u32.to_be_bytes().to_vec();
    out.extend_from_slice(&(name.len() as u32).to_be_bytes());
    out.extend_from_slice(name.as_bytes());
    out.extend_from_slice(&seq.to_be_bytes());
    out.extend_from_slice(body);
    out
}

/// A gateway answering every call with `body` after its header (`frame`:
/// the whole reply in a frame of that stated length instead).
fn gateway(body: Vec<u8>, frame: Option<i32>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    std::thread::spawn(move || {
        for s in listener.incoming() {
            let Ok(mut s) = s else { break };
            let body = body.clone();
            std::thread::spawn(move || {
                while let Some((name, seq)) = read_request(&mut s, frame.is_some()) {
                    let mut out = reply(&name, seq, &body);
                    if let Some(len) = frame {
                        let mut framed = len.to_be_bytes().to_vec();
                        framed.append(&mut out);
                        out = framed;
                    }
                    if s.write_all(&out).is_err() {
                        break;
                    }
                }
            });
        }
    });
    addr
}

/// `get`'s result: field 0 (success), a `TResult` whose field 2 (its
/// cells) is `cells`.
fn get_result(cells: &[u8]) -> Vec<u8> {
    let mut b = vec![12, 0, 0];
    b.extend_from_slice(cells);
    b
}

#[test]
fn replies_whose_sizes_lie_are_errors_and_take_no_memory() {
    let list = |size: i32| {
        let mut b = vec![15, 0, 2, 12];
        b.extend_from_slice(&size.to_be_bytes());
        b
    };
    // The TResult's row (field 1): a string of `size` bytes.
    let string = |size: i32| {
        let mut b = vec![11, 0, 1];
        b.extend_from_slice(&size.to_be_bytes());
        b
    };
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let before = peak_kib();
    for (what, body, frame, says) in [
        (
            "a list of -1 cells",
            get_result(&list(-1)),
            None,
            "a list of size -1",
        ),
        (
            "a list of 2^31 - 1 cells",
            get_result(&list(i32::MAX)),
            None,
            "a list of size 2147483647",
        ),
        (
            "a row of -5 bytes",
            get_result(&string(-5)),
            None,
            "a string of size -5",
        ),
        (
            "a row of 2^31 - 1 bytes",
            get_result(&string(i32::MAX)),
            None,
            "a string of size 2147483647",
        ),
        (
            "a frame of 2 GiB",
            get_result(&list(1)),
            Some(i32::MAX),
            "a frame of 2147483647 bytes",
        ),
        (
            "a frame of -1 bytes",
            get_result(&list(1)),
            Some(-1),
            "a frame of -1 bytes",
        ),
    ] {
        let addr = gateway(body, frame);
        let transport = if frame.is_some() {
            Transport::Framed
        } else {
            Transport::Buffered
        };
        let c = Client::builder(addr)
            .transport(transport)
            .request_timeout(Duration::from_secs(10))
            .retry(rowkey_hbase::RetryPolicy::none())
            .build()
            .unwrap();
        let e = rowkey_core::error_chain(&c.get_raw("t", b"k").unwrap_err());
        assert!(e.contains(says), "{what}: {e}");
    }
    let grew = peak_kib().saturating_sub(before);
    assert!(grew < 64 << 10, "the peak memory grew by {grew} KiB");
}

/// An HTTP gateway that answers 200 and a body that never ends: the
/// client stops reading at its reply budget and the call is an error.
#[test]
fn an_endless_http_body_is_cut_at_the_reply_budget() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let sent = Arc::new(AtomicU64::new(0));
    let counted = Arc::clone(&sent);
    let server = std::thread::spawn(move || {
        let (mut s, _) = listener.accept().unwrap();
        // The request's headers and body (a small POST).
        let mut request = [0u8; 8192];
        let _ = s.read(&mut request);
        let _ = s.write_all(
            b"HTTP/1.1 200 OK\r\nContent-Type: application/x-thrift\r\n\
              Transfer-Encoding: chunked\r\n\r\n",
        );
        let chunk = vec![b'x'; 1 << 16];
        let mut head = format!("{:x}\r\n", chunk.len()).into_bytes();
        head.extend_from_slice(&chunk);
        head.extend_from_slice(b"\r\n");
        // Until the client hangs up, or 1 GiB.
        while counted.load(Ordering::Relaxed) < 1 << 30 {
            if s.write_all(&head).is_err() {
                break;
            }
            counted.fetch_add(chunk.len() as u64, Ordering::Relaxed);
        }
    });
    let c = Client::builder(format!("http://{addr}/"))
        .transport(Transport::Http)
        .request_timeout(Duration::from_secs(60))
        .retry(rowkey_hbase::RetryPolicy::none())
        .build()
        .unwrap();
    let e = rowkey_core::error_chain(&c.get_raw("t", b"k").unwrap_err());
    drop(c);
    server.join().unwrap();
    assert!(e.contains("reading the answer"), "{e}");
    let sent = sent.load(Ordering::Relaxed);
    assert!(
        sent < (256 << 20) + (16 << 20),
        "the client read on to {sent} bytes"
    );
}

mod scanners {
    //! A gateway whose scanner ids are its own: a scan whose connection
    //! fails while it closes one range's scanner must not use its other
    //! range's id on the next connection, which may reach another gateway
    //! (or this one restarted), where that id is another client's scanner.

    use std::net::{TcpListener, TcpStream};
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    use rowkey_core::prelude::*;
    use rowkey_hbase::thrift::{TColumnValue, TResult};
    use rowkey_hbase::Client;
    use thrift::protocol::{
        TBinaryInputProtocol, TBinaryOutputProtocol, TFieldIdentifier, TInputProtocol,
        TListIdentifier, TMessageIdentifier, TMessageType, TOutputProtocol, TSerializable,
        TStructIdentifier, TType,
    };

    #[derive(RowKey)]
    #[salt(buckets = 2, by(id))]
    struct Two {
        id: u8,
    }

    fn row(key: &[u8]) -> TResult {
        let cell = TColumnValue::new(
            b"d".to_vec(),
            b"q".to_vec(),
            b"v".to_vec(),
            Some(1),
            None,
            None,
        );
        TResult::new(Some(key.to_vec()), vec![cell], None, None)
    }

    /// The scanner id in `getScannerRows`' or `closeScanner`'s arguments
    /// (field 1); other arguments skipped.
    fn scanner_id(i: &mut impl TInputProtocol) -> thrift::Result<i32> {
        let mut id = -1;
        i.read_struct_begin()?;
        loop {
            let f = i.read_field_begin()?;
            if f.field_type == TType::Stop {
                break;
            }
            if f.id == Some(1) && f.field_type == TType::I32 {
                id = i.read_i32()?;
            } else {
                i.skip(f.field_type)?;
            }
            i.read_field_end()?;
        }
        i.read_struct_end()?;
        Ok(id)
    }

    /// One connection of the gateway. The first (`old`) opens scanners 1,
    /// 2, 3..., answers each odd one (a scan's range 1) with one row then
    /// none and each even one with one row, and drops the connection when asked to close scanner 1 (it
    /// restarted). Any later one is the restarted gateway: a new scanner
    /// is 9 (the rest of range 2), and its own scanner 2 is another
    /// client's, holding a row no scan of ours may see.
    fn serve(stream: TcpStream, old: bool, restarts: bool) -> thrift::Result<()> {
        let mut i = TBinaryInputProtocol::new(stream.try_clone()?, true);
        let mut o = TBinaryOutputProtocol::new(stream, true);
        let mut opened = 0;
        let mut fetched = [0usize; 10];
        loop {
            let m = i.read_message_begin()?;
            let reply =
                |o: &mut TBinaryOutputProtocol<TcpStream>,
                 body: &dyn Fn(&mut TBinaryOutputProtocol<TcpStream>) -> thrift::Result<()>|
                 -> thrift::Result<()> {
                    o.write_message_begin(&TMessageIdentifier::new(
                        &m.name,
                        TMessageType::Reply,
                        m.sequence_number,
                    ))?;
                    o.write_struct_begin(&TStructIdentifier::new("result"))?;
                    body(o)?;
                    o.write_field_stop()?;
                    o.write_struct_end()?;
                    o.write_message_end()?;
                    o.flush()
                };
            match m.name.as_str() {
                "openScanner" => {
                    i.skip(TType::Struct)?;
                    i.read_message_end()?;
                    opened += 1;
                    let id = if old { opened } else { 9 };
                    reply(&mut o, &|o| {
                        o.write_field_begin(&TFieldIdentifier::new("success", TType::I32, 0))?;
                        o.write_i32(id)?;
                        o.write_field_end()
                    })?;
                }
                "getScannerRows" => {
                    let id = scanner_id(&mut i)?;
                    i.read_message_end()?;
                    let n = fetched[id as usize];
                    fetched[id as usize] += 1;
                    let rows: Vec<TResult> = match (old, id, n) {
                        // Each scan's range 1, then range 2.
                        (true, id, 0) if id % 2 == 1 => vec![row(&[0, 1])],
                        (true, _, 0) => vec![row(&[1, 2])],
                        (false, 9, 0) => vec![row(&[1, 3])],
                        (false, 2, 0) => vec![row(&[1, 0xEE])],
                        _ => vec![],
                    };
                    reply(&mut o, &|o| {
                        o.write_field_begin(&TFieldIdentifier::new("success", TType::List, 0))?;
                        o.write_list_begin(&TListIdentifier::new(
                            TType::Struct,
                            rows.len() as i32,
                        ))?;
                        for r in &rows {
                            r.write_to_out_protocol(o)?;
                        }
                        o.write_list_end()?;
                        o.write_field_end()
                    })?;
                }
                "closeScanner" => {
                    let id = scanner_id(&mut i)?;
                    i.read_message_end()?;
                    if restarts && old && id == 1 {
                        // The gateway restarts: this connection is gone.
                        return Ok(());
                    }
                    reply(&mut o, &|_| Ok(()))?;
                }
                other => panic!("the fake gateway was asked {other}"),
            }
        }
    }

    /// The fake gateway's address, and how many connections it took.
    fn gateway(restarts: bool) -> (String, Arc<AtomicUsize>) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let connections = Arc::new(AtomicUsize::new(0));
        let count = Arc::clone(&connections);
        std::thread::spawn(move || {
            for s in listener.incoming() {
                let Ok(s) = s else { break };
                let old = count.fetch_add(1, Ordering::Relaxed) == 0;
                std::thread::spawn(move || serve(s, old, restarts));
            }
        });
        (addr.to_string(), connections)
    }

    #[test]
    fn a_connection_lost_while_closing_a_scanner_voids_the_scans_other_ids() {
        let (addr, connections) = gateway(true);
        let c = Client::builder(addr)
            .retry(rowkey_hbase::RetryPolicy::none())
            .build()
            .unwrap();
        let keys: Vec<Vec<u8>> = c
            .scan("t", &Two::scan_all(), None)
            .unwrap()
            .map(|r| r.unwrap().0)
            .collect();
        assert_eq!(
            keys,
            [vec![0, 1], vec![1, 2], vec![1, 3]],
            "the rest of range 2 read from a scanner opened on the new connection"
        );
        assert_eq!(connections.load(Ordering::Relaxed), 2);
    }

    /// A scan that returned the rows its limit asks for closes its
    /// scanners and gives its connection back at once: with a pool of one,
    /// another call goes through while the first scan is still held (it
    /// used to keep the connection until dropped, and the call timed out
    /// waiting for it).
    #[test]
    fn a_scan_at_its_limit_gives_its_connection_back() {
        let (addr, connections) = gateway(false);
        let c = Client::builder(addr)
            .pool_size(1)
            .request_timeout(std::time::Duration::from_secs(2))
            .retry(rowkey_hbase::RetryPolicy::none())
            .build()
            .unwrap();
        let mut first = c.scan("t", &Two::scan_all(), Some(1)).unwrap();
        assert_eq!(first.next().unwrap().unwrap().0, [0, 1]);
        let second = c
            .scan("t", &Two::scan_all(), Some(1))
            .and_then(|mut rows| rows.next().transpose())
            .expect("a second call while the first scan is held");
        assert!(second.is_some());
        assert!(first.next().is_none());
        assert_eq!(connections.load(Ordering::Relaxed), 1);
    }
}

/// A client's settings printed with `{:?}` (a log line, a panic message)
/// show no key material: the client certificate's private key is not
/// printed, nor the certificates themselves.
#[test]
fn client_settings_print_no_key_material() {
    let cert = include_bytes!("data/other-root.pem");
    let key = include_bytes!("data/other-root.key");
    let tls = rowkey_hbase::Tls::root_pem(&cert[..]).client_identity(&cert[..], &key[..]);
    let builder = format!("{:?}", Client::builder("https://gateway:9090/").tls(tls));
    let key = String::from_utf8_lossy(key);
    let secret = key.lines().nth(1).expect("a PEM body line");
    assert!(
        !builder.contains(secret) && !builder.contains("PRIVATE"),
        "{builder}"
    );
    assert!(builder.contains("not shown"), "{builder}");
}

/// A gateway that answers every call with an empty success (a `void`
/// result) and closes a connection left idle for 200 ms, as HBase's closes
/// one idle for `hbase.thrift.server.socket.read.timeout`.
fn closing_gateway() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    std::thread::spawn(move || {
        for s in listener.incoming() {
            let Ok(mut s) = s else { break };
            std::thread::spawn(move || loop {
                s.set_read_timeout(Some(Duration::from_millis(200))).ok();
                let mut first = [0u8; 1];
                // Idle too long (or gone): closed.
                if !matches!(s.peek(&mut first), Ok(1)) {
                    let _ = s.shutdown(std::net::Shutdown::Both);
                    return;
                }
                s.set_read_timeout(None).ok();
                let Some((name, seq)) = read_request(&mut s, false) else {
                    return;
                };
                if s.write_all(&reply(&name, seq, &[0])).is_err() {
                    return;
                }
            });
        }
    });
    addr
}

/// A pooled connection the gateway closed while it sat idle is not lent
/// again: a call that is not retried (creating a table) succeeds on a
/// new connection. With an idle limit longer than the gateway's, the same
/// call fails on the closed connection.
#[test]
fn connections_idle_past_the_limit_are_not_lent() {
    let addr = closing_gateway();
    let client = Client::builder(&addr)
        .pool_size(1)
        .idle_timeout(Duration::from_millis(100))
        .build()
        .unwrap();
    std::thread::sleep(Duration::from_millis(500));
    client.create_table("t", &["d"], &[]).unwrap();
    std::thread::sleep(Duration::from_millis(500));
    client.create_table("t", &["d"], &[]).unwrap();
    assert_eq!(client.stats().connections, 3, "{:?}", client.stats());

    let stale = Client::builder(&addr)
        .pool_size(1)
        .idle_timeout(Duration::from_secs(30))
        .build()
        .unwrap();
    std::thread::sleep(Duration::from_millis(500));
    assert!(stale.create_table("t", &["d"], &[]).is_err());
}
