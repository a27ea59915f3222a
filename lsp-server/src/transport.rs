//! The wire: LSP base-protocol framing (`Content-Length: N\r\n\r\n` + JSON) between the
//! client and tower-lsp, with a guard in front.
//!
//! tower-lsp stops reading (and the server ends) at the first message its codec cannot
//! decode: bad JSON, a body that is not UTF-8, a header without `Content-Length`. The guard
//! reads the client's frames itself, forwards only the messages tower-lsp can decode, and
//! answers every other one with a JSON-RPC error (`-32700` parse error, `-32600` invalid
//! request; id `null` unless the message had a readable id), then goes on with the next
//! frame. Its answers and tower-lsp's output are merged frame by frame onto the output.

use serde_json::{json, Value};
use tokio::io::{
    AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader,
};
use tokio::sync::mpsc;

/// Longest header section accepted (all header lines of one message).
pub const MAX_HEADER: usize = 8 * 1024;
/// Largest message body accepted; a larger one is skipped and answered with an error.
pub const MAX_BODY: usize = 256 * 1024 * 1024;

/// One message's frame (header and body) ready to write.
pub fn frame(body: &[u8]) -> Vec<u8> {
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(body);
    out
}

fn error_frame(id: Value, code: i64, message: &str) -> Vec<u8> {
    let v = json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}});
    frame(v.to_string().as_bytes())
}

/// What to do with one body the client sent.
#[derive(Debug, PartialEq)]
pub enum Checked {
    /// A message tower-lsp decodes: forward it.
    Forward,
    /// The `exit` notification: forward it, then end the server's input (tower-lsp stops
    /// serving at `exit` but would otherwise wait for more input before returning).
    ForwardLast,
    /// Answer with this error frame instead.
    Reject(Vec<u8>),
    /// Drop silently (a malformed message that is a response or a notification: JSON-RPC
    /// answers neither).
    Drop,
}

/// Check one message body: JSON-RPC 2.0 request, notification or response, in the shape
/// tower-lsp's codec decodes.
pub fn check(body: &[u8]) -> Checked {
    let Ok(text) = std::str::from_utf8(body) else {
        return Checked::Reject(error_frame(Value::Null, -32700, "parse error: the message is not UTF-8"));
    };
    let v: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => return Checked::Reject(error_frame(Value::Null, -32700, &format!("parse error: {e}"))),
    };
    let id = match v.get("id") {
        Some(i @ (Value::Number(_) | Value::String(_))) => i.clone(),
        _ => Value::Null,
    };
    let Some(obj) = v.as_object() else {
        return Checked::Reject(error_frame(
            Value::Null,
            -32600,
            "invalid request: expected a JSON-RPC 2.0 object (batches are not used by LSP)",
        ));
    };
    let is_request = obj.contains_key("method");
    let ok = if is_request {
        serde_json::from_value::<tower_lsp::jsonrpc::Request>(v.clone()).is_ok()
    } else {
        serde_json::from_value::<tower_lsp::jsonrpc::Response>(v.clone()).is_ok()
    };
    if ok {
        return if obj.get("method").and_then(Value::as_str) == Some("exit") && !obj.contains_key("id") {
            Checked::ForwardLast
        } else {
            Checked::Forward
        };
    }
    if is_request && obj.contains_key("id") {
        Checked::Reject(error_frame(id, -32600, "invalid request: not a JSON-RPC 2.0 request"))
    } else if !is_request && (obj.contains_key("result") || obj.contains_key("error")) {
        Checked::Drop
    } else if is_request {
        // A malformed notification: there is no one to answer.
        Checked::Drop
    } else {
        Checked::Reject(error_frame(
            id,
            -32600,
            "invalid request: neither a request, a notification nor a response",
        ))
    }
}

/// Read one header line (up to `\n`) of at most `limit` bytes into `line`. `Ok(false)` at
/// the end of the input.
async fn read_line_bounded<R: AsyncBufRead + Unpin>(
    r: &mut R,
    line: &mut Vec<u8>,
    limit: usize,
) -> std::io::Result<bool> {
    line.clear();
    loop {
        let buf = r.fill_buf().await?;
        if buf.is_empty() {
            return Ok(!line.is_empty());
        }
        match buf.iter().position(|&b| b == b'\n') {
            Some(i) => {
                if line.len() < limit {
                    line.extend_from_slice(&buf[..=i.min(limit)]);
                }
                r.consume(i + 1);
                return Ok(true);
            }
            None => {
                let n = buf.len();
                if line.len() < limit {
                    let take = n.min(limit - line.len());
                    line.extend_from_slice(&buf[..take]);
                }
                r.consume(n);
            }
        }
    }
}

/// Skip `n` bytes of input. `Ok(false)` at the end of the input.
async fn skip<R: AsyncRead + Unpin>(r: &mut R, mut n: usize) -> std::io::Result<bool> {
    let mut buf = vec![0u8; 64 * 1024];
    while n > 0 {
        let k = r.read(&mut buf[..n.min(64 * 1024)]).await?;
        if k == 0 {
            return Ok(false);
        }
        n -= k;
    }
    Ok(true)
}

/// Read the client's frames from `input`; forward the good ones to `server` (tower-lsp's
/// input), send an error frame to `errors` for every bad one. Returns at the end of the
/// input (or when tower-lsp stops reading).
pub async fn guard_input<R, W>(input: R, mut server: W, errors: mpsc::UnboundedSender<Vec<u8>>)
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut r = BufReader::with_capacity(64 * 1024, input);
    let mut line = Vec::new();
    'messages: loop {
        // Header section: lines up to an empty one.
        let mut length: Option<usize> = None;
        let mut bad_header: Option<String> = None;
        let mut header_bytes = 0usize;
        let mut any_header = false;
        loop {
            match read_line_bounded(&mut r, &mut line, MAX_HEADER + 1).await {
                Ok(true) => {}
                _ => break 'messages,
            }
            header_bytes += line.len();
            let l = String::from_utf8_lossy(&line);
            let mut l = l.trim_end_matches(['\r', '\n']);
            // Garbage glued to a header (the body of a message without a length, bytes
            // without a newline): answer it, and start a new message at the header.
            if let Some(i) = l.find("Content-Length:").filter(|&i| i > 0) {
                let _ = errors.send(error_frame(
                    Value::Null,
                    -32700,
                    &format!("parse error: bytes before a header: `{}`", truncate(&l[..i], 80)),
                ));
                l = &l[i..];
                length = None;
                bad_header = None;
                header_bytes = l.len();
            }
            if l.is_empty() {
                if any_header {
                    break;
                }
                continue; // blank lines between messages
            }
            any_header = true;
            if header_bytes > MAX_HEADER {
                bad_header.get_or_insert_with(|| "the header is too long".into());
                continue;
            }
            match l.split_once(':') {
                Some((name, value)) if name.trim().eq_ignore_ascii_case("content-length") => {
                    match value.trim().parse::<usize>() {
                        Ok(n) => length = Some(n),
                        Err(_) => {
                            bad_header
                                .get_or_insert_with(|| format!("bad Content-Length `{}`", value.trim()));
                        }
                    }
                }
                Some((name, _)) if name.trim().eq_ignore_ascii_case("content-type") => {}
                Some(_) => {} // other headers are ignored, as the specification allows
                None => {
                    bad_header.get_or_insert_with(|| format!("not a header line: `{}`", truncate(l, 80)));
                }
            }
        }
        let Some(n) = length.filter(|_| bad_header.is_none()) else {
            let why = bad_header.unwrap_or_else(|| "missing Content-Length".into());
            // Without a length the body cannot be found: the next frame starts at the next
            // header section (the body, if any, reads as bad header lines and is skipped).
            let _ = errors.send(error_frame(Value::Null, -32700, &format!("parse error: {why}")));
            continue;
        };
        if n > MAX_BODY {
            let _ = errors.send(error_frame(
                Value::Null,
                -32600,
                &format!("invalid request: a message of {n} bytes (the limit is {MAX_BODY})"),
            ));
            if !skip(&mut r, n).await.unwrap_or(false) {
                break;
            }
            continue;
        }
        let mut body = vec![0u8; n];
        if r.read_exact(&mut body).await.is_err() {
            break;
        }
        match check(&body) {
            c @ (Checked::Forward | Checked::ForwardLast) => {
                if server.write_all(&frame(&body)).await.is_err() || server.flush().await.is_err() {
                    break;
                }
                if c == Checked::ForwardLast {
                    break;
                }
            }
            Checked::Reject(e) => {
                let _ = errors.send(e);
            }
            Checked::Drop => {}
        }
    }
    let _ = server.shutdown().await;
}

fn truncate(s: &str, n: usize) -> &str {
    match s.char_indices().nth(n) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

/// Read tower-lsp's output frame by frame and send each whole frame to `out`.
pub async fn split_frames<R: AsyncRead + Unpin>(input: R, out: mpsc::UnboundedSender<Vec<u8>>) {
    let mut r = BufReader::with_capacity(1 << 16, input);
    let mut line = Vec::new();
    loop {
        let mut length = None;
        loop {
            match read_line_bounded(&mut r, &mut line, MAX_HEADER).await {
                Ok(true) => {}
                _ => return,
            }
            let l = String::from_utf8_lossy(&line);
            let l = l.trim_end_matches(['\r', '\n']);
            if l.is_empty() {
                if length.is_some() {
                    break;
                }
                continue;
            }
            if let Some((name, v)) = l.split_once(':') {
                if name.trim().eq_ignore_ascii_case("content-length") {
                    length = v.trim().parse::<usize>().ok();
                }
            }
        }
        let n = length.unwrap_or(0);
        let mut body = vec![0u8; n];
        if r.read_exact(&mut body).await.is_err() {
            return;
        }
        if out.send(frame(&body)).is_err() {
            return;
        }
    }
}

/// Write every frame received to `output`, in order, flushing after each.
pub async fn write_frames<W: AsyncWrite + Unpin>(
    mut frames: mpsc::UnboundedReceiver<Vec<u8>>,
    mut output: W,
) {
    while let Some(f) = frames.recv().await {
        if output.write_all(&f).await.is_err() || output.flush().await.is_err() {
            return;
        }
    }
    let _ = output.shutdown().await;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body_of(frame: &[u8]) -> Value {
        let s = std::str::from_utf8(frame).unwrap();
        serde_json::from_str(s.split_once("\r\n\r\n").unwrap().1).unwrap()
    }

    #[test]
    fn checks_messages() {
        assert_eq!(check(br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#), Checked::Forward);
        assert_eq!(check(br#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#), Checked::Forward);
        assert_eq!(check(br#"{"jsonrpc":"2.0","id":3,"result":null}"#), Checked::Forward);
        assert_eq!(check(br#"{"jsonrpc":"2.0","method":"exit"}"#), Checked::ForwardLast);
        let Checked::Reject(e) = check(b"{not json") else { panic!() };
        assert_eq!(body_of(&e)["error"]["code"], -32700);
        assert_eq!(body_of(&e)["id"], Value::Null);
        let Checked::Reject(e) = check(b"\xff\xfe") else { panic!() };
        assert_eq!(body_of(&e)["error"]["code"], -32700);
        let Checked::Reject(e) = check(br#"{"jsonrpc":"1.0","id":7,"method":"x"}"#) else { panic!() };
        assert_eq!(body_of(&e)["error"]["code"], -32600);
        assert_eq!(body_of(&e)["id"], 7);
        let Checked::Reject(e) = check(b"[1,2]") else { panic!() };
        assert_eq!(body_of(&e)["error"]["code"], -32600);
        assert_eq!(check(br#"{"jsonrpc":"1.0","method":"x"}"#), Checked::Drop);
        let Checked::Reject(_) = check(br#"{"jsonrpc":"2.0","id":2}"#) else { panic!() };
    }

    #[tokio::test]
    async fn guard_forwards_good_frames_and_answers_bad_ones() {
        let good = br#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#;
        let mut input = Vec::new();
        input.extend(frame(b"{oops"));
        input.extend(b"garbage without a header\r\n\r\n");
        input.extend(b"Content-Length: abc\r\n\r\n");
        input.extend(frame(good));
        input.extend(
            b"Content-Length: 2\r\nContent-Type: application/vscode-jsonrpc; charset=latin1\r\n\r\n{}",
        );
        input.extend(frame(good));
        input.extend(b"Foo: bar\r\n\r\n{\"no\": \"length\"}");
        input.extend(frame(good));
        input.extend(b"Content-Length: 100\r\n\r\n{\"trunc");
        let (w, mut r) = tokio::io::duplex(1 << 20);
        let (tx, mut rx) = mpsc::unbounded_channel();
        guard_input(&input[..], w, tx).await;
        let mut fwd = Vec::new();
        r.read_to_end(&mut fwd).await.unwrap();
        let mut expect = frame(good);
        expect.extend(frame(good));
        expect.extend(frame(good));
        assert_eq!(String::from_utf8_lossy(&fwd), String::from_utf8_lossy(&expect));
        let mut codes = Vec::new();
        while let Ok(e) = rx.try_recv() {
            codes.push(body_of(&e)["error"]["code"].as_i64().unwrap());
        }
        // bad JSON, a header line that is not one, a bad length, `{}` (no method, no result),
        // a message without a length, then its body glued to the next header.
        assert_eq!(codes, [-32700, -32700, -32700, -32600, -32700, -32700]);
    }

    #[tokio::test]
    async fn frames_are_split_whole() {
        let mut input = frame(b"{\"a\":1}");
        input.extend(frame("{\"b\":\"é\"}".as_bytes()));
        let (tx, mut rx) = mpsc::unbounded_channel();
        split_frames(&input[..], tx).await;
        assert_eq!(rx.recv().await.unwrap(), frame(b"{\"a\":1}"));
        assert_eq!(rx.recv().await.unwrap(), frame("{\"b\":\"é\"}".as_bytes()));
    }
}
