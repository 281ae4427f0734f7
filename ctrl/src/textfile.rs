//! Reading the text files a config names (the config itself, schedule files,
//! traffic matrices), with errors that say in words what is wrong: missing,
//! a directory, a device or other special file, not permitted, or not UTF-8
//! (with the line, column and byte offset of the first bad byte). A UTF-8
//! byte-order mark is accepted and dropped.

use std::io::ErrorKind;
use std::path::Path;

/// Why a text file cannot be used. Every message names the file once.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TextError {
    #[error("{0} does not exist")]
    Missing(String),
    #[error("{0} is a directory, not a file")]
    Directory(String),
    /// A device, FIFO or socket: reading it could block or never end.
    #[error("{0} is a {1}, not a regular file")]
    Special(String, &'static str),
    #[error("{0} cannot be read: permission denied")]
    Denied(String),
    #[error("{0} cannot be read: {1}")]
    Other(String, String),
    #[error(
        "{file} is not UTF-8 text: byte 0x{byte:02x} at line {line} column {column} (byte offset {offset}) is invalid"
    )]
    NotUtf8 {
        file: String,
        byte: u8,
        line: usize,
        column: usize,
        offset: usize,
    },
}

impl TextError {
    /// The message without the file name at its start (`does not exist`),
    /// for errors that name the file already.
    pub fn reason(&self) -> String {
        let name = match self {
            TextError::Missing(f)
            | TextError::Directory(f)
            | TextError::Special(f, _)
            | TextError::Denied(f)
            | TextError::Other(f, _)
            | TextError::NotUtf8 { file: f, .. } => f,
        };
        let s = self.to_string();
        s.strip_prefix(name.as_str())
            .unwrap_or(&s)
            .trim_start()
            .to_string()
    }
}

fn kind_of(ft: std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if ft.is_char_device() {
        "character device"
    } else if ft.is_block_device() {
        "block device"
    } else if ft.is_fifo() {
        "FIFO"
    } else if ft.is_socket() {
        "socket"
    } else {
        "special file"
    }
}

fn io_error(name: &str, e: &std::io::Error) -> TextError {
    match e.kind() {
        ErrorKind::NotFound => TextError::Missing(name.to_string()),
        ErrorKind::PermissionDenied => TextError::Denied(name.to_string()),
        ErrorKind::IsADirectory => TextError::Directory(name.to_string()),
        _ => {
            // "Is a directory (os error 21)" -> "is a directory (os error 21)"
            let mut m = e.to_string();
            if let Some(c) = m.get(..1) {
                m = c.to_lowercase() + &m[1..];
            }
            TextError::Other(name.to_string(), m)
        }
    }
}

/// Checks that `path` names a regular file, without opening it.
pub fn check_file(path: &Path) -> Result<(), TextError> {
    let name = path.display().to_string();
    let md = std::fs::metadata(path).map_err(|e| io_error(&name, &e))?;
    let ft = md.file_type();
    if ft.is_dir() {
        return Err(TextError::Directory(name));
    }
    if !ft.is_file() {
        return Err(TextError::Special(name, kind_of(ft)));
    }
    Ok(())
}

/// Read `path` as UTF-8 text (a leading byte-order mark is dropped).
pub fn read_text(path: &Path) -> Result<String, TextError> {
    check_file(path)?;
    let name = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| io_error(&name, &e))?;
    decode(bytes, &name)
}

/// UTF-8 text from bytes, BOM dropped; the error locates the first bad byte.
pub fn decode(bytes: Vec<u8>, name: &str) -> Result<String, TextError> {
    match String::from_utf8(bytes) {
        Ok(s) => Ok(match s.strip_prefix('\u{feff}') {
            Some(rest) => rest.to_string(),
            None => s,
        }),
        Err(e) => {
            let offset = e.utf8_error().valid_up_to();
            let bytes = e.as_bytes();
            let before = &bytes[..offset];
            let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
            let line_start = before
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |i| i + 1);
            // Columns count characters, as serde_json's do.
            let column = std::str::from_utf8(&before[line_start..])
                .map_or(offset - line_start, |s| s.chars().count())
                + 1;
            Err(TextError::NotUtf8 {
                file: name.to_string(),
                byte: bytes[offset],
                line,
                column,
                offset,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_utf8_is_located_by_line_column_and_offset() {
        let e = decode(b"{\n  \"a\xc3\xa9\": \"x\xe9y\"\n}".to_vec(), "f.json").unwrap_err();
        assert_eq!(
            e,
            TextError::NotUtf8 {
                file: "f.json".into(),
                byte: 0xe9,
                line: 2,
                column: 11,
                offset: 13,
            }
        );
        assert_eq!(
            e.to_string(),
            "f.json is not UTF-8 text: byte 0xe9 at line 2 column 11 (byte offset 13) is invalid"
        );
    }

    #[test]
    fn io_errors_map_to_words() {
        let e = std::io::Error::from(ErrorKind::PermissionDenied);
        assert_eq!(io_error("f", &e), TextError::Denied("f".into()));
        assert_eq!(
            io_error("f", &e).to_string(),
            "f cannot be read: permission denied"
        );
        let e = std::io::Error::other("Disk on fire");
        assert_eq!(
            io_error("f", &e).to_string(),
            "f cannot be read: disk on fire"
        );
    }

    #[test]
    fn a_byte_order_mark_is_dropped() {
        assert_eq!(decode(b"\xef\xbb\xbf{}".to_vec(), "f").unwrap(), "{}");
        assert_eq!(decode(b"{}".to_vec(), "f").unwrap(), "{}");
    }

    #[test]
    fn directories_devices_and_missing_files_are_named_as_such() {
        assert_eq!(
            read_text(Path::new("/")).unwrap_err(),
            TextError::Directory("/".into())
        );
        assert_eq!(
            read_text(Path::new("/dev/null")).unwrap_err(),
            TextError::Special("/dev/null".into(), "character device")
        );
        let e = read_text(Path::new("/nonexistent/x")).unwrap_err();
        assert_eq!(e, TextError::Missing("/nonexistent/x".into()));
        assert_eq!(e.reason(), "does not exist");
    }
}
