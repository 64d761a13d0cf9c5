//! One test of the running test binary, run alone in a child process: for what must not see
//! this process's state (the CUDA library a process loads once, environment variables).

use std::process::Command;

/// Runs the ignored test `name` (its full path in the binary, `module::test`) alone in a child
/// process of the running test binary, with the environment `setup` gives the command; fails
/// with the child's output unless exactly that test ran and passed. Returns the output
/// (standard output, then standard error).
pub fn run(name: &str, setup: impl FnOnce(&mut Command)) -> String {
    let mut cmd = Command::new(std::env::current_exe().expect("test executable"));
    cmd.args([
        "--exact",
        name,
        "--ignored",
        "--nocapture",
        "--test-threads=1",
    ]);
    setup(&mut cmd);
    let out = cmd.output().expect("running the child test");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "child test {name} failed:\n{text}");
    assert!(
        text.contains("1 passed"),
        "child test {name} did not run:\n{text}"
    );
    text
}
