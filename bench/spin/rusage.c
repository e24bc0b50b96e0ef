/*
 * rusage OUT CMD ARGS...: runs CMD with its output (stdout and stderr) in
 * the file OUT, then prints its CPU time (user + system, in seconds, to the
 * microsecond) and its peak RSS (MiB), from wait4's rusage: what
 * /usr/bin/time -v reports, with more digits. bench/spin/run.sh builds it.
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
	if (argc < 3) {
		fprintf(stderr, "usage: rusage OUT CMD [ARG...]\n");
		return 2;
	}
	pid_t pid = fork();
	if (pid < 0) {
		perror("rusage: fork");
		return 2;
	}
	if (pid == 0) {
		int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0) {
			perror("rusage: open");
			_exit(127);
		}
		dup2(fd, 1);
		dup2(fd, 2);
		close(fd);
		execvp(argv[2], argv + 2);
		perror("rusage: exec");
		_exit(127);
	}
	int status;
	struct rusage ru;
	if (wait4(pid, &status, 0, &ru) < 0) {
		perror("rusage: wait4");
		return 2;
	}
	double cpu = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	printf("%.6f %.1f\n", cpu, ru.ru_maxrss / 1024.0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
