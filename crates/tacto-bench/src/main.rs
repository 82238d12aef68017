//! The `tacto` command. (Skeleton: the CLI lands here.)

fn main() {
    println!("tacto bench: not wired yet");
}
