package io.fastpath.multipart;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadLocalRandom;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferFactory;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.codec.multipart.FilePart;
import org.springframework.util.Assert;

import io.fastpath.multipart.scan.PartHeaders;

/**
 * A part over the in-memory limit, stored in a temporary file as Spring's is. The file is
 * written from the request buffers through a {@link FileChannel} (no copy on the heap
 * when they are direct), read back into buffers of the request's own factory (pooled,
 * where the server pools), and linked or copied to a destination by a file part's
 * {@code transferTo} without being read back at all. {@link #delete()} deletes the file,
 * once however often it is called. All file work runs on the blocking scheduler, as
 * Spring's.
 *
 * @author Fastpath
 */
class SpooledPart extends HeadersPart {

	/** Bytes read from the file per buffer. */
	static final int READ_BUFFER_SIZE = 64 * 1024;

	private final Spool spool;

	private final DataBufferFactory factory;

	private final Scheduler scheduler;

	SpooledPart(PartHeaders headers, Spool spool, DataBufferFactory factory, Scheduler scheduler) {
		super(headers);
		this.spool = spool;
		this.factory = factory;
		this.scheduler = scheduler;
	}

	static SpooledPart of(PartHeaders headers, Spool spool, DataBufferFactory factory, Scheduler scheduler) {
		return (headers.filename() != null)
				? new File(headers, spool, factory, scheduler) : new SpooledPart(headers, spool, factory, scheduler);
	}

	@Override
	public Flux<DataBuffer> content() {
		return DataBufferUtils
			.readByteChannel(() -> FileChannel.open(this.spool.path(), StandardOpenOption.READ), this.factory,
					READ_BUFFER_SIZE)
			.subscribeOn(this.scheduler);
	}

	@Override
	public Mono<Void> delete() {
		return blocking(() -> {
			this.spool.delete();
			return null;
		});
	}

	/** Delete the file on the calling thread. */
	void deleteNow() {
		this.spool.delete();
	}

	Mono<Void> blocking(Callable<?> work) {
		return Mono.<Void>fromCallable(() -> {
			work.call();
			return null;
		}).subscribeOn(this.scheduler);
	}

	Path path() {
		return this.spool.path();
	}

	/**
	 * A file part on disk: its first destination linked to its file, any other copied.
	 * The first {@link #transferTo} makes the destination a hard link to the part's file,
	 * which copies nothing: the part's file is deleted when the request ends, and the
	 * destination is then the file's one name. The part can still be read and transferred
	 * again, as stock's can after its copy. A later transfer copies, as stock does, so that
	 * two destinations are never one file; so does a first transfer whose link the file
	 * system refuses (another file system, no hard links). Until the request ends, the
	 * first destination written in place is what the part reads: stock's part keeps its
	 * own bytes.
	 * <p>The destination is touched only once the part's bytes are safe from the
	 * request's clean-up, which may delete the part's file at any time: the link is made
	 * under a new name beside the destination and then moved over it, and a copy reads
	 * from the file opened first. A transfer that finds the part's file gone fails and
	 * leaves the destination as it was.
	 */
	static final class File extends SpooledPart implements FilePart {

		/** Whether a transfer linked the file, or tried to; under the part's lock. */
		private boolean linkTried;

		File(PartHeaders headers, Spool spool, DataBufferFactory factory, Scheduler scheduler) {
			super(headers, spool, factory, scheduler);
		}

		@Override
		public String filename() {
			return filenameOfFile();
		}

		@Override
		public Mono<Void> transferTo(Path dest) {
			return blocking(() -> {
				if (!link(dest)) {
					copy(dest);
				}
				return null;
			});
		}

		/**
		 * Link the destination to the file, replacing it, if no transfer did before:
		 * linked under a new name first, which fails without touching the destination
		 * if the file is gone, then moved over the destination, replacing it as
		 * {@code Files.copy} with {@code REPLACE_EXISTING} would (a file, a link or an
		 * empty directory).
		 */
		private boolean link(Path dest) throws IOException {
			synchronized (this) {
				if (this.linkTried) {
					return false;
				}
				this.linkTried = true;
			}
			Path file = path();
			Path linked = besides(dest);
			try {
				Files.createLink(linked, file);
			}
			catch (IOException | UnsupportedOperationException ex) {
				return false;
			}
			try {
				Files.move(linked, dest, StandardCopyOption.REPLACE_EXISTING);
				return true;
			}
			finally {
				Files.deleteIfExists(linked);
			}
		}

		/**
		 * Copy the file to the destination, replacing it as {@code Files.copy} with
		 * {@code REPLACE_EXISTING} would: the file is opened first, so that a clean-up
		 * that deletes it now neither fails the copy half way nor has the destination
		 * deleted for nothing.
		 */
		private void copy(Path dest) throws IOException {
			Path file = path();
			try (FileChannel source = FileChannel.open(file, StandardOpenOption.READ)) {
				Files.deleteIfExists(dest);
				try (FileChannel target = FileChannel.open(dest,
						EnumSet.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE), modeOf(file))) {
					long size = source.size();
					long copied = 0;
					while (copied < size) {
						long transferred = source.transferTo(copied, size - copied, target);
						if (transferred <= 0) {
							// the file is shorter than it was: its first destination, a link to
							// it, was truncated in place
							break;
						}
						copied += transferred;
					}
				}
			}
		}

		/** The file's permissions, for its copy to have them as {@code Files.copy}'s has. */
		private static FileAttribute<?>[] modeOf(Path file) throws IOException {
			if (!Files.getFileStore(file).supportsFileAttributeView(PosixFileAttributeView.class)) {
				return new FileAttribute<?>[0];
			}
			return new FileAttribute<?>[] { PosixFilePermissions.asFileAttribute(Files.getPosixFilePermissions(file)) };
		}

		/** A name beside the destination that no file has yet: the link's before its move. */
		private static Path besides(Path dest) {
			Path absolute = dest.toAbsolutePath();
			String name = "." + absolute.getFileName() + "." + Long.toHexString(ThreadLocalRandom.current().nextLong())
					+ ".link";
			return absolute.resolveSibling(name);
		}

	}

	/**
	 * The temporary file of one part: created on the first write, written buffer by
	 * buffer, closed when the part ends, deleted once. Used on the blocking scheduler.
	 */
	static final class Spool implements Disposable {

		private static final Log logger = LogFactory.getLog(Spool.class);

		private @Nullable Path path;

		private @Nullable FileChannel channel;

		private boolean deleted;

		/**
		 * Write the pieces to the file, creating it first if need be, in one gathering
		 * write (a system call for many body buffers), and release them, written or not.
		 * @param pieces the bytes, in order
		 * @param directory where to create the file
		 */
		synchronized void write(List<DataBuffer> pieces, Path directory) {
			List<DataBuffer.ByteBufferIterator> opened = new ArrayList<>(pieces.size());
			try {
				FileChannel target = open(directory);
				List<ByteBuffer> views = new ArrayList<>(pieces.size());
				for (DataBuffer piece : pieces) {
					DataBuffer.ByteBufferIterator iterator = piece.readableByteBuffers();
					opened.add(iterator);
					iterator.forEachRemaining(views::add);
				}
				ByteBuffer[] all = views.toArray(new ByteBuffer[0]);
				int first = 0;
				while (first < all.length) {
					target.write(all, first, all.length - first);
					while (first < all.length && !all[first].hasRemaining()) {
						first++;
					}
				}
			}
			catch (IOException ex) {
				throw new UncheckedIOException("Could not write multipart file " + this.path, ex);
			}
			finally {
				opened.forEach(DataBuffer.ByteBufferIterator::close);
				pieces.forEach(DataBufferUtils::release);
			}
		}

		private FileChannel open(Path directory) throws IOException {
			FileChannel open = this.channel;
			if (open != null) {
				return open;
			}
			Assert.state(!this.deleted, "Multipart file deleted");
			Path file = Files.createTempFile(directory, null, ".multipart");
			this.path = file;
			open = FileChannel.open(file, StandardOpenOption.WRITE);
			this.channel = open;
			return open;
		}

		/** Close the file: the part is complete. */
		synchronized void close() {
			FileChannel open = this.channel;
			if (open != null) {
				this.channel = null;
				try {
					open.close();
				}
				catch (IOException ex) {
					throw new UncheckedIOException("Could not close multipart file " + this.path, ex);
				}
			}
		}

		synchronized Path path() {
			Path file = this.path;
			Assert.state(file != null && !this.deleted, "No multipart file");
			return file;
		}

		/**
		 * Delete the file for the request's end ({@link PartFilesWebFilter}): a failure is
		 * logged, not thrown, as Spring's {@code cleanupMultipart} ignores a part's failed
		 * delete, the request being over.
		 */
		@Override
		public void dispose() {
			try {
				delete();
			}
			catch (RuntimeException ex) {
				logger.warn("Could not delete multipart file " + this.path, ex);
			}
		}

		@Override
		public synchronized boolean isDisposed() {
			return this.deleted;
		}

		/** Close and delete the file, if any, once. */
		synchronized void delete() {
			if (this.deleted) {
				return;
			}
			this.deleted = true;
			FileChannel open = this.channel;
			this.channel = null;
			try {
				if (open != null) {
					open.close();
				}
				if (this.path != null) {
					Files.deleteIfExists(this.path);
				}
			}
			catch (IOException ex) {
				throw new UncheckedIOException("Could not delete multipart file " + this.path, ex);
			}
		}

	}

}
