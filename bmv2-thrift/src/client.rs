//! [`Bmv2Client`]: a typed, width-checked client over the generated Thrift
//! bindings. One TCP connection per multiplexed service ("standard" and
//! "simple_switch"), TBinaryProtocol over a buffered transport, as BMv2's
//! own CLI does.

use std::fmt;
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4, TcpStream};
use std::path::Path;
use std::time::Duration;

use thrift::protocol::{TBinaryInputProtocol, TBinaryOutputProtocol, TMultiplexedOutputProtocol};
use thrift::transport::{
    ReadHalf, TBufferedReadTransport, TBufferedWriteTransport, TIoChannel, TTcpChannel, WriteHalf,
};

use crate::Error;
use crate::error::{counter_code_name, register_code_name, table_code_name};
use crate::generated::simple_switch::{SimpleSwitchSyncClient, TSimpleSwitchSyncClient};
use crate::generated::standard::{
    BmAddEntryOptions, BmMatchParam, BmMatchParamExact, BmMatchParamLPM, BmMatchParamRange,
    BmMatchParamTernary, BmMatchParamType, BmMatchParamValid, InvalidCounterOperation,
    InvalidRegisterOperation, InvalidTableOperation, StandardSyncClient, TStandardSyncClient,
};
use crate::model::{ActionInfo, KeyField, MatchKind, Pipeline, TableInfo, resolve};

type InProto = TBinaryInputProtocol<TBufferedReadTransport<ReadHalf<TTcpChannel>>>;
type OutProto = TMultiplexedOutputProtocol<
    TBinaryOutputProtocol<TBufferedWriteTransport<WriteHalf<TTcpChannel>>>,
>;

/// BMv2 context id: simple_switch has one pipeline context, 0.
const CXT: i32 = 0;
const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);
/// A call that takes longer than this means the switch is wedged.
const IO_TIMEOUT: Duration = Duration::from_secs(30);

/// An entry handle returned by [`Bmv2Client::table_add`].
pub type EntryHandle = i32;

/// A key or parameter value, big-endian. It is encoded to exactly the bit
/// width the switch's JSON gives for the field, and refused if it does not
/// fit (BMv2 itself silently accepts a wrong width).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    Int(u128),
    /// Big-endian bytes, e.g. a MAC address; leading zero bytes are allowed.
    Bytes(Vec<u8>),
}

macro_rules! value_from_uint {
    ($($t:ty),*) => {$(
        impl From<$t> for Value {
            fn from(v: $t) -> Value { Value::Int(v as u128) }
        }
    )*};
}
value_from_uint!(u8, u16, u32, u64, u128, bool);

impl<const N: usize> From<[u8; N]> for Value {
    fn from(b: [u8; N]) -> Value {
        Value::Bytes(b.to_vec())
    }
}
impl From<&[u8]> for Value {
    fn from(b: &[u8]) -> Value {
        Value::Bytes(b.to_vec())
    }
}
impl From<Vec<u8>> for Value {
    fn from(b: Vec<u8>) -> Value {
        Value::Bytes(b)
    }
}
impl From<Ipv4Addr> for Value {
    fn from(a: Ipv4Addr) -> Value {
        Value::Bytes(a.octets().to_vec())
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Int(v) => write!(f, "{v} (0x{v:x})"),
            Value::Bytes(b) => {
                f.write_str("0x")?;
                for x in b {
                    write!(f, "{x:02x}")?;
                }
                Ok(())
            }
        }
    }
}

impl Value {
    /// Number of significant bits.
    fn bits(&self) -> u32 {
        match self {
            Value::Int(v) => 128 - v.leading_zeros(),
            Value::Bytes(b) => match b.iter().position(|x| *x != 0) {
                None => 0,
                Some(i) => (b.len() - i - 1) as u32 * 8 + (8 - b[i].leading_zeros()),
            },
        }
    }

    /// The value in `ceil(width / 8)` big-endian bytes, or None if it needs
    /// more than `width` bits.
    pub fn encode(&self, width: u32) -> Option<Vec<u8>> {
        if self.bits() > width {
            return None;
        }
        let n = width.div_ceil(8) as usize;
        let mut out = vec![0u8; n];
        match self {
            Value::Int(v) => {
                let be = v.to_be_bytes();
                let k = n.min(16);
                out[n - k..].copy_from_slice(&be[16 - k..]);
            }
            Value::Bytes(b) => {
                let sig: &[u8] = &b[b.iter().position(|x| *x != 0).unwrap_or(b.len())..];
                out[n - sig.len()..].copy_from_slice(sig);
            }
        }
        Some(out)
    }
}

/// One key field of an entry, in the order of the table's key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Key {
    Exact(Value),
    /// Matches when `field & mask == value & mask`.
    Ternary {
        value: Value,
        mask: Value,
    },
    /// The first `prefix_len` bits of the field equal those of `value`.
    Lpm {
        value: Value,
        prefix_len: u32,
    },
    /// `lo <= field <= hi`.
    Range {
        lo: Value,
        hi: Value,
    },
    /// Header validity (the `valid` match kind of old programs).
    Valid(bool),
}

impl Key {
    pub fn exact(v: impl Into<Value>) -> Key {
        Key::Exact(v.into())
    }
    pub fn ternary(value: impl Into<Value>, mask: impl Into<Value>) -> Key {
        Key::Ternary {
            value: value.into(),
            mask: mask.into(),
        }
    }
    pub fn lpm(value: impl Into<Value>, prefix_len: u32) -> Key {
        Key::Lpm {
            value: value.into(),
            prefix_len,
        }
    }
    pub fn range(lo: impl Into<Value>, hi: impl Into<Value>) -> Key {
        Key::Range {
            lo: lo.into(),
            hi: hi.into(),
        }
    }

    fn kind(&self) -> &'static str {
        match self {
            Key::Exact(_) => "exact",
            Key::Ternary { .. } => "ternary",
            Key::Lpm { .. } => "lpm",
            Key::Range { .. } => "range",
            Key::Valid(_) => "valid",
        }
    }
}

/// A connection to one simple_switch's Thrift server.
pub struct Bmv2Client {
    standard: StandardSyncClient<InProto, OutProto>,
    sswitch: SimpleSwitchSyncClient<InProto, OutProto>,
    pipeline: Pipeline,
    endpoint: String,
}

impl fmt::Debug for Bmv2Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Bmv2Client")
            .field("endpoint", &self.endpoint)
            .finish_non_exhaustive()
    }
}

fn protocols(stream: TcpStream, service: &str) -> (InProto, OutProto) {
    let (r, w) = TTcpChannel::with_stream(stream)
        .split()
        .expect("a TTcpChannel made from a stream always splits");
    let input = TBinaryInputProtocol::new(TBufferedReadTransport::new(r), true);
    let output = TMultiplexedOutputProtocol::new(
        service,
        TBinaryOutputProtocol::new(TBufferedWriteTransport::new(w), true),
    );
    (input, output)
}

impl Bmv2Client {
    /// Connects to the Thrift server on 127.0.0.1:`port` inside the network
    /// namespace at `ns_path` (e.g. /run/netns/NAME; None: the caller's
    /// namespace). The sockets are opened on a short-lived thread that enters
    /// the namespace; the calling thread never moves. Then reads the switch's
    /// JSON so that entries can be width-checked.
    pub fn connect_in_netns(ns_path: Option<&Path>, port: u16) -> Result<Bmv2Client, Error> {
        let addr = SocketAddr::V4(SocketAddrV4::new(Ipv4Addr::LOCALHOST, port));
        let (a, b) = lh_netns::try_run_in(ns_path, move || {
            let open = || -> std::io::Result<TcpStream> {
                let s = TcpStream::connect_timeout(&addr, CONNECT_TIMEOUT)?;
                s.set_read_timeout(Some(IO_TIMEOUT))?;
                s.set_write_timeout(Some(IO_TIMEOUT))?;
                s.set_nodelay(true)?;
                Ok(s)
            };
            Ok((open()?, open()?))
        })
        .map_err(|source| Error::Connect {
            addr: addr.to_string(),
            netns: ns_path.map(|p| p.display().to_string()),
            source,
        })?;
        let endpoint = match ns_path {
            Some(p) => format!("{addr} in {}", p.display()),
            None => addr.to_string(),
        };
        Self::from_streams(a, b, endpoint)
    }

    /// Connects to a Thrift server in the caller's namespace.
    pub fn connect(addr: SocketAddr) -> Result<Bmv2Client, Error> {
        let open = || -> std::io::Result<TcpStream> {
            let s = TcpStream::connect_timeout(&addr, CONNECT_TIMEOUT)?;
            s.set_read_timeout(Some(IO_TIMEOUT))?;
            s.set_write_timeout(Some(IO_TIMEOUT))?;
            s.set_nodelay(true)?;
            Ok(s)
        };
        let err = |source| Error::Connect {
            addr: addr.to_string(),
            netns: None,
            source,
        };
        let a = open().map_err(err)?;
        let b = open().map_err(err)?;
        Self::from_streams(a, b, addr.to_string())
    }

    /// Builds a client from two connected streams (one per service).
    pub fn from_streams(
        standard: TcpStream,
        simple_switch: TcpStream,
        endpoint: String,
    ) -> Result<Bmv2Client, Error> {
        let (i, o) = protocols(standard, "standard");
        let (i2, o2) = protocols(simple_switch, "simple_switch");
        let mut c = Bmv2Client {
            standard: StandardSyncClient::new(i, o),
            sswitch: SimpleSwitchSyncClient::new(i2, o2),
            pipeline: Pipeline::default(),
            endpoint,
        };
        c.reload_pipeline()?;
        tracing::debug!(endpoint = %c.endpoint, tables = c.pipeline.tables.len(), "connected to simple_switch");
        Ok(c)
    }

    /// Where this client is connected.
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    /// The switch's BMv2 JSON (`bm_get_config`).
    pub fn config_json(&mut self) -> Result<serde_json::Value, Error> {
        let s = self
            .standard
            .bm_get_config()
            .map_err(|source| Error::Thrift {
                call: "bm_get_config",
                source,
            })?;
        serde_json::from_str(&s)
            .map_err(|e| Error::BadConfig(format!("bm_get_config returned invalid JSON: {e}")))
    }

    /// Re-reads the JSON (after a new program was swapped in).
    pub fn reload_pipeline(&mut self) -> Result<(), Error> {
        let j = self.config_json()?;
        self.pipeline = Pipeline::from_json(&j)?;
        Ok(())
    }

    /// Tables, actions, registers and counters of the loaded program.
    pub fn pipeline(&self) -> &Pipeline {
        &self.pipeline
    }

    fn table(&self, name: &str) -> Result<&TableInfo, Error> {
        resolve(&self.pipeline.tables, name).map_err(|candidates| Error::UnknownName {
            kind: "table",
            name: name.to_string(),
            candidates,
        })
    }

    fn table_action(&self, t: &TableInfo, action: &str) -> Result<ActionInfo, Error> {
        let a =
            resolve(&self.pipeline.actions, action).map_err(|candidates| Error::UnknownName {
                kind: "action",
                name: action.to_string(),
                candidates,
            })?;
        if !t.actions.contains(&a.name) {
            return Err(Error::ActionNotInTable {
                table: t.name.clone(),
                action: a.name.clone(),
                allowed: t.actions.clone(),
            });
        }
        Ok(a.clone())
    }

    /// Encodes the parameters of `action` to their widths.
    pub fn encode_params(action: &ActionInfo, params: &[Value]) -> Result<Vec<Vec<u8>>, Error> {
        if params.len() != action.params.len() {
            return Err(Error::ParamCount {
                action: action.name.clone(),
                expected: action.params.len(),
                got: params.len(),
            });
        }
        action
            .params
            .iter()
            .zip(params)
            .map(|((pname, w), v)| {
                v.encode(*w).ok_or_else(|| Error::ParamTooWide {
                    action: action.name.clone(),
                    param: pname.clone(),
                    value: v.to_string(),
                    width: *w,
                })
            })
            .collect()
    }

    /// Encodes a key to the field widths of `table`.
    pub fn encode_key(table: &TableInfo, keys: &[Key]) -> Result<Vec<BmMatchParam>, Error> {
        if keys.len() != table.key.len() {
            return Err(Error::KeyCount {
                table: table.name.clone(),
                expected: table.key.len(),
                got: keys.len(),
            });
        }
        table
            .key
            .iter()
            .zip(keys)
            .map(|(f, k)| encode_one(table, f, k))
            .collect()
    }

    /// Adds an entry and returns its handle. Key fields go in the table's
    /// key order; every value must fit the field's width.
    ///
    /// `priority` is required for ternary and range tables and ignored for
    /// exact and lpm tables (lpm picks the longest prefix). In BMv2 **a lower
    /// value is a higher priority**: of two matching entries, the one with
    /// the smaller priority number wins (the reverse of P4Runtime).
    pub fn table_add(
        &mut self,
        table: &str,
        action: &str,
        keys: &[Key],
        params: &[Value],
        priority: Option<i32>,
    ) -> Result<EntryHandle, Error> {
        let t = self.table(table)?.clone();
        let a = self.table_action(&t, action)?;
        let match_key = Self::encode_key(&t, keys)?;
        let data = Self::encode_params(&a, params)?;
        let options = if t.needs_priority() {
            let p = priority.ok_or_else(|| Error::MissingPriority {
                table: t.name.clone(),
                match_type: t.match_type.clone(),
            })?;
            BmAddEntryOptions::new(p)
        } else {
            BmAddEntryOptions { priority: None }
        };
        let h = self
            .standard
            .bm_mt_add_entry(
                CXT,
                t.name.clone(),
                match_key,
                a.name.clone(),
                data,
                options,
            )
            .map_err(|e| table_err("bm_mt_add_entry", &t.name, e))?;
        tracing::trace!(table = %t.name, action = %a.name, handle = h, "entry added");
        Ok(h)
    }

    /// Deletes one entry.
    pub fn table_delete(&mut self, table: &str, handle: EntryHandle) -> Result<(), Error> {
        let t = self.table(table)?.name.clone();
        self.standard
            .bm_mt_delete_entry(CXT, t.clone(), handle)
            .map_err(|e| table_err("bm_mt_delete_entry", &t, e))
    }

    /// Changes the action (and its parameters) of an existing entry.
    pub fn table_modify(
        &mut self,
        table: &str,
        handle: EntryHandle,
        action: &str,
        params: &[Value],
    ) -> Result<(), Error> {
        let t = self.table(table)?.clone();
        let a = self.table_action(&t, action)?;
        let data = Self::encode_params(&a, params)?;
        self.standard
            .bm_mt_modify_entry(CXT, t.name.clone(), handle, a.name.clone(), data)
            .map_err(|e| table_err("bm_mt_modify_entry", &t.name, e))
    }

    /// Removes all entries of a table (its default action is kept).
    pub fn table_clear(&mut self, table: &str) -> Result<(), Error> {
        let t = self.table(table)?.name.clone();
        self.standard
            .bm_mt_clear_entries(CXT, t.clone(), false)
            .map_err(|e| table_err("bm_mt_clear_entries", &t, e))
    }

    /// Number of entries in a table.
    pub fn table_num_entries(&mut self, table: &str) -> Result<u64, Error> {
        let t = self.table(table)?.name.clone();
        self.standard
            .bm_mt_get_num_entries(CXT, t.clone())
            .map(|n| n as u64)
            .map_err(|e| table_err("bm_mt_get_num_entries", &t, e))
    }

    /// Sets the action run on a miss.
    pub fn table_set_default(
        &mut self,
        table: &str,
        action: &str,
        params: &[Value],
    ) -> Result<(), Error> {
        let t = self.table(table)?.clone();
        let a = self.table_action(&t, action)?;
        let data = Self::encode_params(&a, params)?;
        self.standard
            .bm_mt_set_default_action(CXT, t.name.clone(), a.name.clone(), data)
            .map_err(|e| table_err("bm_mt_set_default_action", &t.name, e))
    }

    fn register(&self, name: &str, index: Option<u32>) -> Result<(String, u32), Error> {
        let r =
            resolve(&self.pipeline.registers, name).map_err(|candidates| Error::UnknownName {
                kind: "register",
                name: name.to_string(),
                candidates,
            })?;
        if let Some(i) = index
            && i >= r.size
        {
            return Err(Error::IndexOutOfRange {
                kind: "register",
                name: r.name.clone(),
                index: i,
                size: r.size,
            });
        }
        Ok((r.name.clone(), r.bitwidth))
    }

    /// Writes one cell of a register array. Thrift carries 64 bits, so
    /// registers wider than 64 bits can only get values below 2^64.
    pub fn register_write(&mut self, name: &str, index: u32, value: u64) -> Result<(), Error> {
        let (r, w) = self.register(name, Some(index))?;
        if w < 64 && value >> w != 0 {
            return Err(Error::RegisterValueTooWide {
                register: r,
                value,
                width: w,
            });
        }
        self.standard
            .bm_register_write(CXT, r.clone(), index as i32, value as i64)
            .map_err(|e| register_err("bm_register_write", &r, e))
    }

    /// Reads one cell of a register array.
    pub fn register_read(&mut self, name: &str, index: u32) -> Result<u64, Error> {
        let (r, _) = self.register(name, Some(index))?;
        self.standard
            .bm_register_read(CXT, r.clone(), index as i32)
            .map(|v| v as u64)
            .map_err(|e| register_err("bm_register_read", &r, e))
    }

    /// Sets every cell of a register array to 0.
    pub fn register_reset(&mut self, name: &str) -> Result<(), Error> {
        let (r, _) = self.register(name, None)?;
        self.standard
            .bm_register_reset(CXT, r.clone())
            .map_err(|e| register_err("bm_register_reset", &r, e))
    }

    fn counter(&self, name: &str, index: Option<u32>) -> Result<String, Error> {
        let c =
            resolve(&self.pipeline.counters, name).map_err(|candidates| Error::UnknownName {
                kind: "counter",
                name: name.to_string(),
                candidates,
            })?;
        if let Some(i) = index
            && !c.is_direct
            && i >= c.size
        {
            return Err(Error::IndexOutOfRange {
                kind: "counter",
                name: c.name.clone(),
                index: i,
                size: c.size,
            });
        }
        Ok(c.name.clone())
    }

    /// Reads one cell of an indirect counter: (packets, bytes).
    pub fn counter_read(&mut self, name: &str, index: u32) -> Result<(u64, u64), Error> {
        let c = self.counter(name, Some(index))?;
        let v = self
            .standard
            .bm_counter_read(CXT, c.clone(), index as i32)
            .map_err(|e| counter_err("bm_counter_read", &c, e))?;
        Ok((v.packets.unwrap_or(0) as u64, v.bytes.unwrap_or(0) as u64))
    }

    /// Sets every cell of a counter array to 0.
    pub fn counter_reset(&mut self, name: &str) -> Result<(), Error> {
        let c = self.counter(name, None)?;
        self.standard
            .bm_counter_reset_all(CXT, c.clone())
            .map_err(|e| counter_err("bm_counter_reset_all", &c, e))
    }

    /// Microseconds since the switch started: the clock of
    /// `standard_metadata.ingress_global_timestamp`.
    pub fn time_elapsed_us(&mut self) -> Result<u64, Error> {
        self.sswitch
            .get_time_elapsed_us()
            .map(|v| v as u64)
            .map_err(|source| Error::Thrift {
                call: "get_time_elapsed_us",
                source,
            })
    }

    /// Wall-clock microseconds since the Unix epoch, read by the switch.
    pub fn time_since_epoch_us(&mut self) -> Result<u64, Error> {
        self.sswitch
            .get_time_since_epoch_us()
            .map(|v| v as u64)
            .map_err(|source| Error::Thrift {
                call: "get_time_since_epoch_us",
                source,
            })
    }

    /// The generated "standard" client, for calls this type does not wrap.
    /// Nothing is width-checked there.
    pub fn raw_standard(&mut self) -> &mut impl TStandardSyncClient {
        &mut self.standard
    }

    /// The generated "simple_switch" client (queue depths and rates, mirroring).
    pub fn raw_simple_switch(&mut self) -> &mut impl TSimpleSwitchSyncClient {
        &mut self.sswitch
    }
}

fn encode_one(t: &TableInfo, f: &KeyField, k: &Key) -> Result<BmMatchParam, Error> {
    let fit = |what: &'static str, v: &Value| {
        v.encode(f.bitwidth).ok_or_else(|| Error::KeyTooWide {
            table: t.name.clone(),
            field: f.name.clone(),
            what,
            value: v.to_string(),
            width: f.bitwidth,
        })
    };
    let wrong = || Error::KeyKind {
        table: t.name.clone(),
        field: f.name.clone(),
        expected: f.kind.as_str(),
        got: k.kind(),
    };
    let p = match (f.kind, k) {
        (MatchKind::Exact, Key::Exact(v)) => BmMatchParam {
            type_: Some(BmMatchParamType::EXACT),
            exact: Some(BmMatchParamExact::new(fit("value", v)?)),
            ..Default::default()
        },
        (MatchKind::Ternary, Key::Ternary { value, mask }) => BmMatchParam {
            type_: Some(BmMatchParamType::TERNARY),
            ternary: Some(BmMatchParamTernary::new(
                fit("value", value)?,
                fit("mask", mask)?,
            )),
            ..Default::default()
        },
        (MatchKind::Lpm, Key::Lpm { value, prefix_len }) => {
            if *prefix_len > f.bitwidth {
                return Err(Error::PrefixTooLong {
                    table: t.name.clone(),
                    field: f.name.clone(),
                    prefix_len: *prefix_len,
                    width: f.bitwidth,
                });
            }
            BmMatchParam {
                type_: Some(BmMatchParamType::LPM),
                lpm: Some(BmMatchParamLPM::new(
                    fit("value", value)?,
                    *prefix_len as i32,
                )),
                ..Default::default()
            }
        }
        (MatchKind::Range, Key::Range { lo, hi }) => BmMatchParam {
            type_: Some(BmMatchParamType::RANGE),
            range: Some(BmMatchParamRange::new(
                fit("range start", lo)?,
                fit("range end", hi)?,
            )),
            ..Default::default()
        },
        (MatchKind::Valid, Key::Valid(b)) => BmMatchParam {
            type_: Some(BmMatchParamType::VALID),
            valid: Some(BmMatchParamValid::new(*b)),
            ..Default::default()
        },
        _ => return Err(wrong()),
    };
    Ok(p)
}

fn table_err(call: &'static str, table: &str, e: thrift::Error) -> Error {
    if let thrift::Error::User(u) = &e
        && let Some(x) = u.downcast_ref::<InvalidTableOperation>()
    {
        return Error::TableOp {
            call,
            table: table.to_string(),
            code: table_code_name(x.code.map(|c| c.0).unwrap_or(100)),
        };
    }
    Error::Thrift { call, source: e }
}

fn register_err(call: &'static str, register: &str, e: thrift::Error) -> Error {
    if let thrift::Error::User(u) = &e
        && let Some(x) = u.downcast_ref::<InvalidRegisterOperation>()
    {
        return Error::RegisterOp {
            call,
            register: register.to_string(),
            code: register_code_name(x.code.map(|c| c.0).unwrap_or(3)),
        };
    }
    Error::Thrift { call, source: e }
}

fn counter_err(call: &'static str, counter: &str, e: thrift::Error) -> Error {
    if let thrift::Error::User(u) = &e
        && let Some(x) = u.downcast_ref::<InvalidCounterOperation>()
    {
        return Error::CounterOp {
            call,
            counter: counter.to_string(),
            code: counter_code_name(x.code.map(|c| c.0).unwrap_or(3)),
        };
    }
    Error::Thrift { call, source: e }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A client can move to the thread that owns a switch.
    #[test]
    fn client_is_send() {
        fn send<T: Send>() {}
        send::<Bmv2Client>();
    }

    #[test]
    fn encodes_to_exact_byte_width() {
        assert_eq!(Value::from(5u32).encode(9), Some(vec![0, 5]));
        assert_eq!(Value::from(511u32).encode(9), Some(vec![1, 0xff]));
        assert_eq!(Value::from(512u32).encode(9), None);
        assert_eq!(Value::from(0u8).encode(1), Some(vec![0]));
        assert_eq!(Value::from([0u8, 0, 0, 1]).encode(8), Some(vec![1]));
        assert_eq!(
            Value::from([1u8, 2, 3, 4, 5, 6]).encode(48),
            Some(vec![1, 2, 3, 4, 5, 6])
        );
        assert_eq!(Value::from([1u8, 2, 3, 4, 5, 6]).encode(40), None);
        assert_eq!(
            Value::from(u128::MAX).encode(128).map(|v| v.len()),
            Some(16)
        );
        assert_eq!(Value::from(1u8).encode(136).map(|v| v.len()), Some(17));
        assert_eq!(
            Value::from(Ipv4Addr::new(10, 0, 0, 1)).encode(32),
            Some(vec![10, 0, 0, 1])
        );
    }
}
