//! `cli()` / Mininet's `CLI(net)`: `lighthouse run`'s CLI over a network a
//! Python object holds, with `py`/`px` evaluated by a Python hook in the
//! script's namespace.

use lh_emu::cli::Cli;
use lh_emu::net::Network;
use pyo3::PyClass;
use pyo3::prelude::*;
use pyo3::pyclass::boolean_struct::False;

/// A Python class that holds a running network (`LighthouseNet`, `MnNet`).
pub trait HoldsNetwork {
    fn slot(&mut self) -> &mut Option<Network>;
}

/// Run the CLI on `owner`'s network: `script`'s lines, or the interactive
/// prompt. While a `py`/`px` line runs, the network is lent back to
/// `owner`, so the script's node objects can use it (the CLI holds a
/// stand-in meanwhile). `not_running` ends the error when nothing runs.
pub fn run<T>(
    owner: &Bound<'_, T>,
    script: Option<String>,
    hook: Option<Py<PyAny>>,
    not_running: &str,
    prompt: &'static str,
) -> PyResult<()>
where
    T: PyClass<Frozen = False> + HoldsNetwork,
{
    let py = owner.py();
    let mut net = owner.borrow_mut().slot().take().ok_or_else(|| {
        crate::NetworkError::new_err(format!("the network is not running: call {not_running}"))
    })?;
    // Set when a `py`/`px` line stopped the network (net.stop()).
    let stopped = std::rc::Rc::new(std::cell::Cell::new(false));
    let r = {
        let mut cli = Cli::new(&mut net);
        cli.prompt = prompt;
        if let Some(hook) = hook {
            let owner: Py<T> = owner.clone().unbind();
            let stopped = stopped.clone();
            cli.set_py(Box::new(move |n: &mut Network, line: &str, px: bool| {
                let stand_in = Network::offline(n.plan.clone(), &n.prefix);
                *owner.borrow_mut(py).slot() = Some(std::mem::replace(n, stand_in));
                let r = hook.call1(py, (line, px));
                match owner.borrow_mut(py).slot().take() {
                    Some(real) => *n = real,
                    None => stopped.set(true),
                }
                match r {
                    Ok(v) => v.bind(py).extract::<String>().map_err(|e| e.to_string()),
                    Err(e) => Err(e.to_string()),
                }
            }));
        }
        match script {
            Some(f) => match std::fs::File::open(&f) {
                Ok(file) => {
                    let _ = cli.run_lines(std::io::BufReader::new(file), &f);
                    Ok(())
                }
                Err(e) => Err(pyo3::exceptions::PyOSError::new_err(format!(
                    "CLI(script={f:?}): {e}"
                ))),
            },
            None => {
                // The line editor and the CLI take SIGINT over; Python's
                // KeyboardInterrupt must work again afterwards.
                let saved = lh_emu::kernel::signals::SigintInterrupts::take();
                cli.run_interactive();
                drop(saved);
                Ok(())
            }
        }
    };
    if !stopped.get() {
        *owner.borrow_mut().slot() = Some(net);
    }
    r
}
